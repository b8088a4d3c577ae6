"""The Debian mirror this machine's apt uses (so that no host is written
into the project): the first URI of a deb822 .sources file, or of a
one-line `deb` entry, that serves `suite`."""
from pathlib import Path


def debian_mirror(suite="bookworm"):
    sources = Path("/etc/apt/sources.list.d")
    for path in sorted(sources.glob("*.sources")) if sources.is_dir() else []:
        for stanza in path.read_text().split("\n\n"):
            fields = {}
            for line in stanza.splitlines():
                key, _, value = line.partition(":")
                fields[key.strip()] = value.strip()
            if suite in fields.get("Suites", "").split() and "Types" in fields and "deb" in fields["Types"].split():
                return fields["URIs"].split()[0]
    for path in [Path("/etc/apt/sources.list"), *sorted(sources.glob("*.list"))]:
        if not path.is_file():
            continue
        for line in path.read_text().splitlines():
            words = line.split()
            if len(words) >= 3 and words[0] == "deb" and suite in words:
                return [w for w in words[1:] if not w.startswith("[")][0]
    raise LookupError(f"no apt source for {suite}")
