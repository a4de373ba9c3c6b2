"""The registry's v1 calls (`chainguard.platform.registry.Registry` and `.Vulnerabilities`, `/registry/v1/...`):
adapters over the v2 implementations (service/v1.py says how the dialects differ): repos.py, tags.py (with the
tags summary), images.py (architectures, size, manifest metadata); reports.py holds three v1 calls with no
v2 counterpart (GetVulnReport, ListVulnCountReports, ListEolTags), vulnreports.py two more (ListVulnReports,
GetRawVulnReport) and sboms.py the SBOM's (GetSbom, GetRawSbom)."""
