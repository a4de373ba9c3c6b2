"""Registry: repos (with readmes), tags, images and their facts, SBOMs, vulnerability reports, end-of-life
data, and the v1 calls over them; the importers of each."""

from platform_api.registry import (
    eol,
    images,
    oci_import,
    queries,
    repos,
    sbom_import,
    tags,
    v1,
    vulnreport_import,
)
from platform_api.service.cascade import Cascade
from platform_api.service.wiring import Domain, handlers

DOMAIN = Domain(
    "registry",
    rpcs=handlers(repos, tags, images, v1),
    importers={"oci": oci_import, "sbom": sbom_import, "vulnreport": vulnreport_import, "eol": eol},
    cascades=(Cascade("group", "repos", exists=queries.any_repo_in),),
)
