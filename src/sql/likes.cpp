#include "sql/likes.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <map>
#include <tuple>

#include "common/time.hpp"
#include "sql/dialect.hpp"

namespace plaudit::sql {
namespace {

// Jobs are named std::function variables, never lambda temporaries inside co_await (GCC 12).

constexpr std::string_view kLikers =
    "SELECT user_id FROM likes WHERE target_type = $1 AND target_id = $2 AND user_id >= $3 "
    "AND user_id <= $4 AND valid = 1 ORDER BY user_id LIMIT $5";
constexpr std::string_view kArticleCount = "SELECT like_count FROM articles WHERE id = $1";
// A deleted comment keeps its row (a placeholder, or a tombstone): it has no likeable count.
constexpr std::string_view kCommentCount =
    "SELECT like_count FROM comments WHERE id = $1 AND deleted = 0";
constexpr std::string_view kUpsertHead =
    "INSERT INTO likes (target_type, target_id, user_id, valid, seq, updated_at) VALUES ";
constexpr std::string_view kUpsertTail =
    " ON CONFLICT (target_type, target_id, user_id) DO UPDATE SET valid = excluded.valid, "
    "seq = excluded.seq, updated_at = excluded.updated_at WHERE likes.seq < excluded.seq";
// The highest seq committed per like shard (migration 008), raised in each flush transaction.
constexpr std::string_view kRaiseShardSeq =
    "INSERT INTO like_shards (shard, seq) VALUES ($1, $2) ON CONFLICT (shard) DO UPDATE SET "
    "seq = excluded.seq WHERE like_shards.seq < excluded.seq";
constexpr std::string_view kRaiseShardSeqMysql =
    "INSERT INTO like_shards (shard, seq) VALUES ($1, $2) "
    "ON DUPLICATE KEY UPDATE seq = GREATEST(seq, VALUES(seq))";
// MySQL's upsert, with the same guard: assignments run left to right, so seq goes last and
// the others compare against the stored one. Only rows MySQL's Apply found new or newer reach
// it (its affected count does not say which rows an upsert wrote), so the guard is a second
// line of defence there.
constexpr std::string_view kUpsertTailMysql =
    " ON DUPLICATE KEY UPDATE valid = IF(seq < VALUES(seq), VALUES(valid), valid), "
    "updated_at = IF(seq < VALUES(seq), VALUES(updated_at), updated_at), "
    "seq = GREATEST(seq, VALUES(seq))";
// MySQL: a piece's stored rows, locked, so Apply knows which of its changes are newer.
constexpr std::string_view kStoredSeqsHead =
    "SELECT target_type, target_id, user_id, seq FROM likes WHERE ";
// Per shard, the higher of the flusher's seq and the cache writes' (migration 014).
constexpr std::string_view kShardSeqs =
    "SELECT shard, MAX(seq) FROM (SELECT shard, seq FROM like_shards UNION ALL "
    "SELECT shard, seq FROM cache_shards) s GROUP BY shard";
// PostgreSQL: a batch's targets, locked in id order before its rows are written (see Apply).
constexpr std::string_view kLockArticles =
    "SELECT id FROM articles WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE";
constexpr std::string_view kLockComments =
    "SELECT id FROM comments WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE";
// Valid rows of some users of one target (the users are appended as an IN list).
constexpr std::string_view kLikedAmong =
    "SELECT user_id FROM likes WHERE target_type = $1 AND target_id = $2 AND valid = 1 "
    "AND user_id IN ";
// PostgreSQL reads each statement of a READ COMMITTED transaction from a new snapshot; the
// count and the rows must come from one.
constexpr std::string_view kSnapshot = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ";
constexpr std::string_view kArticleDrift =
    "SELECT a.id, (SELECT COUNT(*) FROM likes l WHERE l.target_type = 'a' AND "
    "l.target_id = a.id AND l.valid = 1) AS actual FROM articles a WHERE a.like_count <> "
    "(SELECT COUNT(*) FROM likes l WHERE l.target_type = 'a' AND l.target_id = a.id AND "
    "l.valid = 1)";
// The repair counts the rows again in its own statement, after the target's row is locked
// (PostgreSQL and MySQL: FOR UPDATE; SQLite's transaction holds the write lock): a flush committing
// meanwhile either came before the lock, so its rows are counted, or comes after the repair's
// commit, and its triggers then add its own changes to the repaired count.
constexpr std::string_view kLockArticle = "SELECT id FROM articles WHERE id = $1 FOR UPDATE";
constexpr std::string_view kFixArticleCount =
    "UPDATE articles SET like_count = (SELECT COUNT(*) FROM likes l WHERE l.target_type = 'a' "
    "AND l.target_id = $1 AND l.valid = 1) WHERE id = $1";
constexpr std::string_view kCommentDrift =
    "SELECT c.id, (SELECT COUNT(*) FROM likes l WHERE l.target_type = 'c' AND "
    "l.target_id = c.id AND l.valid = 1) AS actual FROM comments c WHERE c.like_count <> "
    "(SELECT COUNT(*) FROM likes l WHERE l.target_type = 'c' AND l.target_id = c.id AND "
    "l.valid = 1)";
constexpr std::string_view kLockComment = "SELECT id FROM comments WHERE id = $1 FOR UPDATE";
constexpr std::string_view kFixCommentCount =
    "UPDATE comments SET like_count = (SELECT COUNT(*) FROM likes l WHERE l.target_type = 'c' "
    "AND l.target_id = $1 AND l.valid = 1) WHERE id = $1";
// Rows of deleted articles that a flush wrote after the delete (their Redis state outlived it).
constexpr std::string_view kOrphanLikes =
    "DELETE FROM likes WHERE target_type = 'a' AND NOT EXISTS "
    "(SELECT 1 FROM articles a WHERE a.id = likes.target_id)";
// MySQL: the same rows found first and deleted by target (a statement may not read the table
// its triggers write: error 1442).
constexpr std::string_view kOrphanTargetsMysql =
    "SELECT DISTINCT target_id FROM likes WHERE target_type = 'a' AND NOT EXISTS "
    "(SELECT 1 FROM articles a WHERE a.id = likes.target_id)";
constexpr std::string_view kOrphanCommentTargetsMysql =
    "SELECT DISTINCT target_id FROM likes WHERE target_type = 'c' AND NOT EXISTS "
    "(SELECT 1 FROM comments c WHERE c.id = likes.target_id)";
constexpr std::string_view kOrphanCommentLikes =
    "DELETE FROM likes WHERE target_type = 'c' AND NOT EXISTS "
    "(SELECT 1 FROM comments c WHERE c.id = likes.target_id)";

// Rows per INSERT: few enough statements to be fast, few enough parameters for any driver.
// A batch is cut into power-of-two pieces (200 rows: 128 + 64 + 8), so only 8 statement
// texts exist and each connection prepares each once. A text per row count meant up to 128
// of them, more than SQLite's statement cache kept warm: a 100-row statement took ~2M
// instructions to prepare, three quarters of a flush's CPU (callgrind, a like storm).
constexpr size_t kMaxRowsLog2 = 7;
// A like target's shard is its id (or its comment's article id, which shares the low bits)
// modulo 256, as in Redis (redis/keys.hpp kLikeShards).
constexpr int64_t kShards = 256;
constexpr size_t kRowsPerStatement = size_t{1} << kMaxRowsLog2;

// The rows of the next piece of a batch with `left` rows still to write (left > 0).
size_t PieceRows(size_t left) {
  size_t rows = kRowsPerStatement;
  while (rows > left) {
    rows >>= 1;
  }
  return rows;
}

using PieceTexts = std::array<std::string, kMaxRowsLog2 + 1>;

// The upsert of `rows` rows (a power of two up to kRowsPerStatement), built once per dialect.
const std::string& UpsertSql(size_t rows, bool mysql) {
  static const auto texts = [] {
    std::array<PieceTexts, 2> out;
    for (size_t d = 0; d < 2; ++d) {
      for (size_t log2 = 0; log2 <= kMaxRowsLog2; ++log2) {
        std::string& sql = out[d][log2];
        sql = kUpsertHead;
        for (size_t i = 0, p = 0; i < (size_t{1} << log2); ++i, p += 6) {
          sql += (i == 0 ? "($" : ", ($") + std::to_string(p + 1) + ", $" + std::to_string(p + 2) +
                 ", $" + std::to_string(p + 3) + ", $" + std::to_string(p + 4) + ", $" +
                 std::to_string(p + 5) + ", $" + std::to_string(p + 6) + ")";
        }
        sql += d == 1 ? kUpsertTailMysql : kUpsertTail;
      }
    }
    return out;
  }();
  return texts[mysql ? 1 : 0][static_cast<size_t>(std::countr_zero(rows))];
}

// MySQL: the locking read of `rows` stored rows by primary key (a power of two), built once.
// An OR of key equalities, which InnoDB reads as that many point ranges of the primary key.
const std::string& StoredSeqsSql(size_t rows) {
  static const auto texts = [] {
    PieceTexts out;
    for (size_t log2 = 0; log2 <= kMaxRowsLog2; ++log2) {
      std::string& sql = out[log2];
      sql = kStoredSeqsHead;
      for (size_t i = 0, p = 0; i < (size_t{1} << log2); ++i, p += 3) {
        sql += (i == 0 ? "(target_type = $" : " OR (target_type = $") + std::to_string(p + 1) +
               " AND target_id = $" + std::to_string(p + 2) + " AND user_id = $" +
               std::to_string(p + 3) + ")";
      }
      sql += " FOR UPDATE";
    }
    return out;
  }();
  return texts[static_cast<size_t>(std::countr_zero(rows))];
}

// MySQL: the changes of changes[start, start + rows) that are new rows or newer than the
// stored ones (the rest are replays a flush already wrote), reading the stored rows locked.
Result<std::vector<LikeChange>> NewerChanges(Connection& tx, const std::vector<LikeChange>& changes,
                                             size_t start, size_t rows) {
  std::vector<Value> params;
  params.reserve(rows * 3);
  for (size_t i = start; i < start + rows; ++i) {
    params.emplace_back(std::string(1, changes[i].type));
    params.emplace_back(changes[i].target_id);
    params.emplace_back(changes[i].user_id);
  }
  PL_TRY(auto stored, tx.Query(StoredSeqsSql(rows), params));
  std::map<std::tuple<char, int64_t, int64_t>, int64_t> seqs;
  for (const Row& row : stored.rows) {
    const std::string type = Text(row[0]);
    seqs[{type.empty() ? ' ' : type[0], Int(row[1]), Int(row[2])}] = Int(row[3]);
  }
  std::vector<LikeChange> out;
  for (size_t i = start; i < start + rows; ++i) {
    const LikeChange& ch = changes[i];
    auto it = seqs.find({ch.type, ch.target_id, ch.user_id});
    if (it == seqs.end() || it->second < ch.seq) {
      out.push_back(ch);
    }
  }
  return out;
}

// Writes `changes` (in primary-key order) as upserts of power-of-two pieces; returns the rows
// the database reports written.
Result<int64_t> Upsert(Connection& tx, const std::vector<LikeChange>& changes, int64_t now) {
  const bool mysql = tx.dialect() == Dialect::kMysql;
  int64_t written = 0;
  std::vector<Value> params;
  for (size_t start = 0, rows = 0; start < changes.size(); start += rows) {
    rows = PieceRows(changes.size() - start);
    params.clear();
    params.reserve(rows * 6);
    for (size_t i = start; i < start + rows; ++i) {
      const auto& ch = changes[i];
      params.emplace_back(std::string(1, ch.type));
      params.emplace_back(ch.target_id);
      params.emplace_back(ch.user_id);
      params.emplace_back(int64_t{ch.valid ? 1 : 0});
      params.emplace_back(ch.seq);
      params.emplace_back(now);
    }
    PL_TRY(auto r, tx.Query(UpsertSql(rows, mysql), params));
    written += r.affected;
  }
  return written;
}

// The likes table's `type` column.
char TypeOf(const model::Target& t) { return t.is_comment() ? 'c' : 'a'; }

}  // namespace

Awaitable<Result<std::vector<int64_t>>> LikeTable::Likers(model::Target target, int64_t lo,
                                                          int64_t hi, int64_t limit) {
  const char type = TypeOf(target);
  const int64_t target_id = target.id;
  std::function<Result<std::vector<int64_t>>(Connection&)> job =
      [type, target_id, lo, hi, limit](Connection& c) -> Result<std::vector<int64_t>> {
    return c.QueryInts(kLikers, {std::string(1, type), target_id, lo, hi, limit});
  };
  co_return co_await store_.Run<std::vector<int64_t>>(std::move(job));
}

Awaitable<Result<std::optional<int64_t>>> LikeTable::Count(char type, int64_t target_id) {
  const std::string_view sql = type == 'a' ? kArticleCount : kCommentCount;
  std::vector<Value> params{target_id};
  co_return co_await store_.QueryInt(sql, std::move(params));
}

Awaitable<Result<LikeCountState>> LikeTable::CountState(model::Target target,
                                                        std::vector<int64_t> users) {
  const char type = TypeOf(target);
  const int64_t target_id = target.id;
  std::function<Result<LikeCountState>(Connection&)> job =
      [type, target_id, users = std::move(users)](Connection& c) -> Result<LikeCountState> {
    LikeCountState out;
    // MySQL: SET TRANSACTION names the next transaction's level, so it goes before it.
    if (c.dialect() == Dialect::kMysql) {
      PL_CHECK(c.Query(kSnapshot));
    }
    auto st = c.Transaction([&](Connection& tx) -> Status {
      if (tx.dialect() == Dialect::kPostgres) {
        PL_CHECK(tx.Query(kSnapshot));
      }
      PL_TRY(auto count, tx.QueryInt(type == 'a' ? kArticleCount : kCommentCount, {target_id}));
      out.count = count;
      if (!count) {
        return {};
      }
      // Power-of-two pieces, as for the upsert: SQLite's per-connection statement cache then
      // holds 8 texts, not one per list length.
      for (size_t start = 0, rows = 0; start < users.size(); start += rows) {
        rows = PieceRows(users.size() - start);
        std::vector<int64_t> piece(users.begin() + static_cast<std::ptrdiff_t>(start),
                                   users.begin() + static_cast<std::ptrdiff_t>(start + rows));
        std::vector<Value> params{std::string(1, type), target_id};
        const std::string sql = std::string(kLikedAmong) + InList(piece, params);
        PL_TRY(auto liked, tx.QueryInts(sql, params));
        out.liked.insert(out.liked.end(), liked.begin(), liked.end());
      }
      return {};
    });
    PL_CHECK(st);
    return out;
  };
  co_return co_await store_.Run<LikeCountState>(std::move(job));
}

Awaitable<Result<int64_t>> LikeTable::Apply(std::vector<LikeChange> changes) {
  // Primary-key order: two flushers writing overlapping rows lock them (and, through the
  // count triggers, their targets' rows) in the same order, so neither waits for the other
  // in a cycle (PostgreSQL would abort one as a deadlock).
  std::sort(changes.begin(), changes.end(), [](const LikeChange& a, const LikeChange& b) {
    return std::tie(a.type, a.target_id, a.user_id) < std::tie(b.type, b.target_id, b.user_id);
  });
  std::function<Result<int64_t>(Connection&)> job =
      [changes = std::move(changes)](Connection& c) -> Result<int64_t> {
    int64_t written = 0;
    const int64_t now = NowMs();
    auto st = c.Transaction([&](Connection& tx) -> Status {
      // PostgreSQL: every target of the batch is locked first, articles then comments, ids
      // ascending. The count triggers (migration 012) then wait for no one: they run per
      // statement, the INSERT's and the UPDATE's apart, so left to themselves a piece would
      // lock its inserted rows' targets and then its updated rows' targets, and two flushers
      // could wait for each other in a cycle (PostgreSQL aborts one as a deadlock: test
      // ConcurrentFlushersOfSharedTargetsNeitherDeadlockNorMiscount).
      if (tx.dialect() == Dialect::kPostgres) {
        for (const char kind : {'a', 'c'}) {
          std::string ids = "{";
          int64_t last = 0;
          for (const auto& ch : changes) {  // sorted: each kind's ids ascend
            if (ch.type != kind || ch.target_id == last) {
              continue;
            }
            if (ids.size() > 1) {
              ids.push_back(',');
            }
            ids += std::to_string(ch.target_id);
            last = ch.target_id;
          }
          if (ids.size() == 1) {
            continue;
          }
          ids.push_back('}');
          PL_CHECK(tx.Query(kind == 'a' ? kLockArticles : kLockComments, {std::move(ids)}));
        }
      }
      if (tx.dialect() == Dialect::kMysql) {
        // MySQL's row triggers (migration 007) lock each target as its rows are written, and
        // the rows go in primary-key order: targets are locked in (kind, id) order without a
        // first pass. An upsert's affected count there says 2 for an updated row and 1 for an
        // untouched one, so the rows to write are chosen first, piece by piece.
        for (size_t start = 0, rows = 0; start < changes.size(); start += rows) {
          rows = PieceRows(changes.size() - start);
          PL_TRY(auto newer, NewerChanges(tx, changes, start, rows));
          PL_CHECK(Upsert(tx, newer, now));
          written += static_cast<int64_t>(newer.size());
        }
      } else {
        PL_TRY(auto w, Upsert(tx, changes, now));
        written += w;
      }
      // The shards' highest seqs, after the rows (the same lock order for every flusher).
      std::map<int64_t, int64_t> shard_seqs;
      for (const auto& ch : changes) {
        int64_t& top = shard_seqs[ch.target_id % kShards];
        top = std::max(top, ch.seq);
      }
      for (const auto& [shard, seq] : shard_seqs) {
        const std::string_view raise =
            tx.dialect() == Dialect::kMysql ? kRaiseShardSeqMysql : kRaiseShardSeq;
        PL_CHECK(tx.Query(raise, {shard, seq}));
      }
      return {};
    });
    PL_CHECK(st);
    return written;
  };
  co_return co_await store_.Run<int64_t>(std::move(job));
}

Awaitable<Result<std::vector<int64_t>>> LikeTable::ShardSeqs() {
  std::function<Result<std::vector<int64_t>>(Connection&)> job =
      [](Connection& c) -> Result<std::vector<int64_t>> {
    PL_TRY(auto r, c.Query(kShardSeqs));
    std::vector<int64_t> out(kShards, 0);
    for (const auto& row : r.rows) {
      const int64_t shard = Int(row[0]);
      if (shard >= 0 && shard < kShards) {
        out[static_cast<size_t>(shard)] = Int(row[1]);
      }
    }
    return out;
  };
  co_return co_await store_.Run<std::vector<int64_t>>(std::move(job));
}

Awaitable<Result<std::vector<std::pair<char, int64_t>>>> LikeTable::Reconcile() {
  using Fixed = std::vector<std::pair<char, int64_t>>;
  std::function<Result<Fixed>(Connection&)> job = [](Connection& c) -> Result<Fixed> {
    Fixed fixed;
    auto st = c.Transaction([&](Connection& tx) -> Status {
      if (tx.dialect() == Dialect::kMysql) {
        for (const auto& [type, find] :
             {std::pair{'a', kOrphanTargetsMysql}, std::pair{'c', kOrphanCommentTargetsMysql}}) {
          PL_TRY(auto ids, tx.QueryInts(find));
          PL_CHECK(DeleteLikesOf(tx, type, ids));
        }
      } else {
        for (auto orphans : {kOrphanLikes, kOrphanCommentLikes}) {
          PL_CHECK(tx.Query(orphans));
        }
      }
      struct Kind {
        char type;
        std::string_view drift, lock, fix;
      };
      const Kind kinds[] = {{'a', kArticleDrift, kLockArticle, kFixArticleCount},
                            {'c', kCommentDrift, kLockComment, kFixCommentCount}};
      const bool lock = tx.dialect() != Dialect::kSqlite;
      for (const Kind& k : kinds) {
        PL_TRY(auto drift, tx.Query(k.drift));
        for (const auto& row : drift.rows) {
          const int64_t id = Int(row[0]);
          if (lock) {
            PL_CHECK(tx.Query(k.lock, {id}));
          }
          PL_CHECK(tx.Query(k.fix, {id}));
          fixed.emplace_back(k.type, id);
        }
      }
      return {};
    });
    PL_CHECK(st);
    return fixed;
  };
  co_return co_await store_.Run<Fixed>(std::move(job));
}

}  // namespace plaudit::sql
