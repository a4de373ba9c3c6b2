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
    vulnreport_import,
)
from platform_api.registry.v1 import digestcount as v1_digestcount
from platform_api.registry.v1 import history as v1_history
from platform_api.registry.v1 import images as v1_images
from platform_api.registry.v1 import reports as v1_reports
from platform_api.registry.v1 import repos as v1_repos
from platform_api.registry.v1 import sboms as v1_sboms
from platform_api.registry.v1 import tags as v1_tags
from platform_api.registry.v1 import versions as v1_versions
from platform_api.registry.v1 import vulnreports as v1_vulnreports
from platform_api.service.cascade import Cascade
from platform_api.service.wiring import Domain, handlers

DOMAIN = Domain(
    "registry",
    rpcs=handlers(
        repos,
        tags,
        images,
        v1_reports,
        v1_repos,
        v1_tags,
        v1_images,
        v1_history,
        v1_digestcount,
        v1_vulnreports,
        v1_sboms,
        v1_versions,
    ),
    importers={"oci": oci_import, "sbom": sbom_import, "vulnreport": vulnreport_import, "eol": eol},
    cascades=(Cascade("group", "repos", exists=queries.any_repo_in),),
)
