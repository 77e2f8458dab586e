"""A PEP 517 backend that zips the `tracecheck` package into a pure-Python wheel, stdlib only."""
import base64
import hashlib
import os
import zipfile

NAME = "tracecheck_client"
VERSION = "0.1.0"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIST_INFO = f"{NAME}-{VERSION}.dist-info"
METADATA = f"Metadata-Version: 2.1\nName: tracecheck-client\nVersion: {VERSION}\nRequires-Python: >=3.9\n"
WHEEL = "Wheel-Version: 1.0\nGenerator: tracecheck-backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    filename = f"{NAME}-{VERSION}-py3-none-any.whl"
    records = []
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as whl:
        package = os.path.join(ROOT, "tracecheck")
        for entry in sorted(os.listdir(package)):
            if not entry.endswith(".py"):
                continue
            with open(os.path.join(package, entry), "rb") as f:
                data = f.read()
            whl.writestr(f"tracecheck/{entry}", data)
            records.append(_record_line(f"tracecheck/{entry}", data))
        for name, text in (("METADATA", METADATA), ("WHEEL", WHEEL)):
            whl.writestr(f"{DIST_INFO}/{name}", text)
            records.append(_record_line(f"{DIST_INFO}/{name}", text.encode()))
        records.append(f"{DIST_INFO}/RECORD,,")
        whl.writestr(f"{DIST_INFO}/RECORD", "\n".join(records) + "\n")
    return filename


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    os.makedirs(os.path.join(metadata_directory, DIST_INFO), exist_ok=True)
    for name, text in (("METADATA", METADATA), ("WHEEL", WHEEL)):
        with open(os.path.join(metadata_directory, DIST_INFO, name), "w") as f:
            f.write(text)
    return DIST_INFO
