-- SQLite has no statement-level triggers: migration 007's row triggers stay (the flush cost
-- they add there is small: docs/benchmarks.md, "Flush"). This file keeps the two dialects'
-- migration numbers in step.
SELECT 1;
