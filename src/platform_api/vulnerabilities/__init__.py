"""Vulnerabilities: a group's advisories (AdvisoriesService) and the OSV metadata (`import osv`) they and
the public feed read severities from."""

from platform_api.service.cascade import Cascade
from platform_api.service.wiring import Domain, handlers
from platform_api.vulnerabilities import advisories, advisory_queries, osv_import

DOMAIN = Domain(
    "vulnerabilities",
    rpcs=handlers(advisories),
    importers={"osv": osv_import},
    # No API call deletes advisories: they go with their group (which they do not keep from being deleted).
    cascades=(Cascade("group", "advisories", remove=advisory_queries.delete_in_group),),
)
