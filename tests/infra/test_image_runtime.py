"""The container image's runtime stage installs everything the binary needs.
No container registry is reachable here, so the Dockerfile's runtime stage is
rebuilt by hand: a debootstrapped bookworm minbase root, exactly the
packages the Dockerfile lists, the built binary, and the image's user. In
it, `size` must run on a fixture and on an http:// URL."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import DATA, ROOT, SIZER, run_sizer
from debian_mirror import debian_mirror

IMAGE_USER = "10001:10001"


def runtime_packages():
    """The packages the Dockerfile's last stage installs."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    last_stage = dockerfile[dockerfile.rindex("\nFROM "):]
    match = re.search(r"apt-get install -y --no-install-recommends ([^\\&\n]+)", last_stage)
    assert match, "the runtime stage installs no packages?"
    return sorted(match[1].split())


@pytest.fixture(scope="module")
def image_root():
    if os.geteuid() != 0 or not shutil.which("debootstrap"):
        if os.environ.get("CI"):
            pytest.fail("building the image root needs root and debootstrap")
        pytest.skip("building the image root needs root and debootstrap")
    packages = runtime_packages()
    root = SIZER.parent / "image-root"
    stamp = root / ".h5ad-sizer-packages"
    # Kept in the build folder: the root only changes with the package list.
    if not stamp.is_file() or stamp.read_text().split() != packages:
        shutil.rmtree(root, ignore_errors=True)
        subprocess.run(["debootstrap", "--variant=minbase", "bookworm", str(root), debian_mirror()],
                       check=True, capture_output=True)
        subprocess.run(["chroot", str(root), "apt-get", "install", "-y", "--no-install-recommends", *packages],
                       check=True, capture_output=True, env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
                                                             "DEBIAN_FRONTEND": "noninteractive"})
        stamp.write_text(" ".join(packages))
    shutil.copy2(SIZER, root / "usr" / "local" / "bin" / "h5ad-sizer")
    shutil.copy2(DATA / "example.h5ad", root / "tmp" / "example.h5ad")
    return root


def run_in(root, *args):
    return subprocess.run(["chroot", f"--userspec={IMAGE_USER}", str(root), "/usr/local/bin/h5ad-sizer", *args],
                          capture_output=True, text=True, env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}, timeout=60)


def test_the_dockerfile_lists_runtime_packages():
    assert "libcurl4" in runtime_packages() and "ca-certificates" in runtime_packages()


def test_every_library_resolves(image_root):
    result = subprocess.run(["chroot", str(image_root), "ldd", "/usr/local/bin/h5ad-sizer"],
                            capture_output=True, text=True)
    assert result.returncode == 0 and "not found" not in result.stdout, result.stdout


def test_size_runs_on_a_fixture_as_the_image_user(image_root):
    result = run_in(image_root, "size", "/tmp/example.h5ad")
    assert result.returncode == 0, result.stderr
    here = json.loads(run_sizer(["size", str(DATA / "example.h5ad")]).stdout)
    there = json.loads(result.stdout)
    here["dataset"].pop("source"), there["dataset"].pop("source")
    assert there == here


def test_size_runs_on_an_http_url(image_root, nginx):
    result = run_in(image_root, "size", f"{nginx}/example.h5ad")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["bucket"]["index"] == 1
