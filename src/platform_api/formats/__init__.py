"""File formats of the field that more than one domain reads, below every domain: parsing and validating an
input into plain values, with no records and no SQL (each owner maps them onto its own records)."""
