#!/usr/bin/env python3
"""Inlines infra/step-functions/*.asl.json into h5ad-sizer.yaml, so that one
`aws cloudformation deploy` deploys the stack (no package step) and cfn-lint
checks the definitions in place. The ASL files are the source: edit them,
then run this. With --check it changes nothing and exits 1 when the template
is out of date (the tests run that).

A state machine's definition follows its marker comment:
      # definition: NAME.asl.json
      Definition: ...
"""
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "h5ad-sizer.yaml"
DEFINITIONS = HERE.parent / "step-functions"
# The marker, the key, and the body: every following line indented deeper.
MARKER = re.compile(r"^(?P<indent> *)# definition: (?P<name>\S+)\n(?P=indent)Definition:.*\n(?:(?P=indent)  .*\n)*",
                    re.M)


def inline(match):
    indent = match["indent"]
    definition = json.loads((DEFINITIONS / match["name"]).read_text())
    body = json.dumps(definition, indent=2, ensure_ascii=False).replace("\n", "\n" + indent + "  ")
    return f"{indent}# definition: {match['name']}\n{indent}Definition:\n{indent}  {body}\n"


def main():
    text = TEMPLATE.read_text()
    synced, count = MARKER.subn(inline, text)
    if count != len(list(DEFINITIONS.glob("*.asl.json"))):
        sys.exit(f"{TEMPLATE.name}: {count} definition markers for {len(list(DEFINITIONS.glob('*.asl.json')))} ASL files")
    if "--check" in sys.argv[1:]:
        if synced != text:
            sys.exit(f"{TEMPLATE.name} does not carry the current ASL files: run {Path(__file__).name}")
        return
    TEMPLATE.write_text(synced)


if __name__ == "__main__":
    main()
