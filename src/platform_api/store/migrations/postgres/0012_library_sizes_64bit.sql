-- A version's size is the sum of its distribution files (a PyTorch release is tens of GB): 64-bit, as the
-- contract's int64 and SQLite's INTEGER already are.
ALTER TABLE library_versions ALTER COLUMN size_bytes TYPE BIGINT;
