-- PostgreSQL moved its like counts to statement triggers here. MySQL has row triggers only:
-- migration 007's stay, and keep counts equal to rows in the rows' own transaction. (Measured
-- in docs/benchmarks.md, "Flush into MariaDB".)
SELECT 1;
