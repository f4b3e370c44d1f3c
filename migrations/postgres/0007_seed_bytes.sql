-- Seeds of 32 bytes (issue #27): each match's seed is 32 bytes from the
-- operating system's generator, kept here as 64 lowercase hex digits (the
-- engine's `Seed`). The matches stored before keep their 64-bit seed in
-- `seed` and NULL here, and read as that number's expansion
-- (`Seed::from(u64)`), which deals the same cards; later matches hold 0 in
-- `seed`, which nothing reads. See docs/security.md.
ALTER TABLE matches ADD COLUMN seed_hex TEXT;
