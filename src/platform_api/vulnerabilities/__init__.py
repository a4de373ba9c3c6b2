"""Vulnerabilities: a group's advisories (AdvisoriesService) and the OSV metadata (`import osv`) they and
the public feed read severities from."""

from platform_api.service.cascade import Cascade
from platform_api.service.wiring import Domain, handlers
from platform_api.vulnerabilities import advisories, advisory_queries, osv_import
from platform_api.vulnerabilities.v1 import advisories as v1_advisories

DOMAIN = Domain(
    "vulnerabilities",
    rpcs=handlers(advisories, v1_advisories),
    importers={"osv": osv_import},
    # Advisories go with their group (which they do not keep from being deleted); v1 Delete removes one authored.
    cascades=(Cascade("group", "advisories", remove=advisory_queries.delete_in_group),),
)
