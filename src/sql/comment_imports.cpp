// CommentTable's writes of imported comments (`import --from`, transfer/foreign_import.hpp).
#include <map>
#include <set>

#include "sql/comment_standing.hpp"
#include "sql/comments.hpp"
#include "sql/dialect.hpp"
#include "text/utf8.hpp"

namespace plaudit::sql {

using namespace detail;  // comment_standing.hpp: the counts and locks every comment write uses

namespace {

constexpr std::string_view kGuestAccount = "SELECT id FROM users WHERE username_key = '@guest'";
constexpr std::string_view kMapImported =
    "INSERT INTO imported_comments (import_key, idx, comment_id) VALUES ($1, $2, $3) "
    "ON CONFLICT (import_key, idx) DO NOTHING";
constexpr std::string_view kInsertImported =
    "INSERT INTO comments (id, article_id, parent_id, author_id, body, created_at, updated_at, "
    "status, held_reasons, guest_name, guest_email, answers_id, html, deleted) "
    "VALUES ($1, $2, $3, $4, $5, $6, $6, $7, '', $8, $9, $10, $11, $12)";
constexpr std::string_view kUserByEmail =
    "SELECT id FROM users WHERE LOWER(email) = LOWER($1) AND email_verified_at IS NOT NULL "
    "AND deleted_at IS NULL ORDER BY id LIMIT 1";
constexpr std::string_view kImportedIds =
    "SELECT idx, comment_id FROM imported_comments WHERE import_key = $1 AND idx > $2 "
    "ORDER BY idx LIMIT $3";
constexpr std::string_view kSetAnswers = "UPDATE comments SET answers_id = $2 WHERE id = $1";

}  // namespace

namespace {

// Who an imported comment is by, as a transaction finds out (each name key and address looked
// up once).
class Authors {
 public:
  Authors(int64_t guest, bool users_by_email) : guest_(guest), users_by_email_(users_by_email) {}

  struct Author {
    int64_t id = 0;
    Value name;   // a guest's; null for a user's comment
    Value email;  // a guest's, or null
  };

  Result<Author> Of(Connection& tx, const ImportedComment& c) {
    if (users_by_email_ && !c.guest_email.empty()) {
      PL_TRY(const int64_t user, UserOf(tx, c.guest_email));
      if (user != 0) {
        return Author{user, Value{nullptr}, Value{nullptr}};
      }
    }
    PL_TRY(std::string name, GuestName(tx, c));
    return Author{guest_, Value{std::move(name)},
                  c.guest_email.empty() ? Value{nullptr} : Value{c.guest_email}};
  }

 private:
  // A guest's name that looks like a registered user's (its skeleton is one of their name
  // keys, as a guest commenting now is refused for): marked as the guest's, so no import
  // passes a passer-by off as the site's admin.
  Result<std::string> GuestName(Connection& tx, const ImportedComment& c) {
    if (c.guest_name_key.empty()) {
      return c.guest_name;
    }
    auto it = held_.find(c.guest_name_key);
    if (it == held_.end()) {
      PL_TRY(auto r, tx.Query(kNameKeyHeld, {c.guest_name_key}));
      it = held_.emplace(c.guest_name_key, !r.rows.empty()).first;
    }
    if (!it->second) {
      return c.guest_name;
    }
    return std::string(text::PrefixCodePoints(c.guest_name, 42)) + " (guest)";
  }

  // The live user whose verified address `email` is (by its lower case), or 0. Only a
  // verified one: an address anyone may type in does not take a stranger's comments.
  Result<int64_t> UserOf(Connection& tx, const std::string& email) {
    auto it = users_.find(email);
    if (it == users_.end()) {
      PL_TRY(auto r, tx.Query(kUserByEmail, {email}));
      it = users_.emplace(email, r.rows.empty() ? 0 : Int(r.rows[0][0])).first;
    }
    return it->second;
  }

  int64_t guest_;
  bool users_by_email_;
  std::map<std::string, bool> held_;      // guest name key → a user's
  std::map<std::string, int64_t> users_;  // address → user (0: none)
};

// One article's imported comments, inside the caller's transaction.
Status WriteArticle(Connection& tx, const std::string& key, Authors& authors,
                    const ImportedArticle& a, CommentWrite& out) {
  const int64_t article_id = a.article_id;
  // The article's row first: the lock order of every comment write and the like flush.
  PL_TRY(auto lock, tx.Query(kThreadSeq, {article_id, a.stamp.seq}));
  if (lock.affected == 0) {
    return Fail(ErrorCode::kNotFound, "no such article");
  }
  std::map<int64_t, bool> hides;       // top → whether it hides its replies
  std::map<int64_t, int64_t> replies;  // top → approved replies written
  std::vector<int64_t> ids;
  int64_t shown = 0;
  for (const ImportedComment& c : a.comments) {
    PL_TRY(auto mapped, InsertOrNothing(tx, kMapImported, {key, c.idx, c.id}));
    if (mapped.affected == 0) {
      continue;  // written by an earlier run
    }
    const std::string status(model::CommentStatusName(c.status));
    PL_TRY(Authors::Author author, authors.Of(tx, c));
    PL_CHECK(tx.Query(kInsertImported,
                      {c.id, article_id, Nullable(c.top), author.id, c.body, c.created_at_ms,
                       status, std::move(author.name), std::move(author.email), Nullable(c.answers),
                       c.html, int64_t{c.deleted ? 1 : 0}}));
    ids.push_back(c.id);
    const bool counted = c.status == model::CommentStatus::kApproved && !c.deleted;
    if (!counted) {
      continue;
    }
    if (!c.top) {
      ++shown;
      continue;
    }
    auto h = hides.find(*c.top);
    if (h == hides.end()) {
      PL_TRY(const bool top_hides, TopHides(tx, *c.top));
      h = hides.emplace(*c.top, top_hides).first;
    }
    shown += h->second ? 0 : 1;
    ++replies[*c.top];
  }
  if (ids.empty()) {
    return Status{};
  }
  PL_CHECK(tx.Query(kAddToArticle, {article_id, shown, a.stamp.seq}));
  for (const auto& [top, n] : replies) {
    PL_CHECK(tx.Query(kAddReplies, {top, n}));
    ids.push_back(top);
  }
  std::set<int64_t> seen;
  std::vector<int64_t> unique;
  for (int64_t id : ids) {
    if (seen.insert(id).second) {
      unique.push_back(id);
    }
  }
  return ReadBack(tx, unique, article_id, out);
}

}  // namespace

Awaitable<Result<std::vector<CommentWrite>>> CommentTable::InsertImported(
    std::string import_key, bool users_by_email, std::vector<ImportedArticle> batches) {
  using Writes = std::vector<CommentWrite>;
  std::function<Result<Writes>(Connection&)> job =
      [key = std::move(import_key), users_by_email,
       batches = std::move(batches)](Connection& conn) -> Result<Writes> {
    Writes out;
    auto st = conn.Transaction([&](Connection& tx) -> Status {
      out.assign(batches.size(), CommentWrite{});
      PL_TRY(auto guest, tx.QueryInt(kGuestAccount));
      if (!guest) {
        return Fail(ErrorCode::kInternal, "no '@guest' account");
      }
      std::map<int, CacheStamp> shards;  // shard → the highest stamp of it
      Authors authors(*guest, users_by_email);
      for (size_t i = 0; i < batches.size(); ++i) {
        PL_CHECK(WriteArticle(tx, key, authors, batches[i], out[i]));
        CacheStamp& top = shards[batches[i].stamp.shard];
        if (top.shard < 0 || top.seq < batches[i].stamp.seq) {
          top = batches[i].stamp;
        }
      }
      // The shards' rows after every article's, in ascending order: a write of one article
      // takes its row and then its shard's, so one that waits for an article held here holds
      // no shard this transaction will want.
      for (const auto& [shard, stamp] : shards) {
        PL_CHECK(RaiseCacheShard(tx, stamp));
      }
      return Status{};
    });
    PL_CHECK(st);
    return out;
  };
  co_return co_await store_.Run<Writes>(std::move(job));
}

Awaitable<Result<std::vector<std::pair<int64_t, int64_t>>>> CommentTable::ImportedIds(
    std::string import_key, int64_t after_idx, int64_t limit) {
  using Pairs = std::vector<std::pair<int64_t, int64_t>>;
  std::function<Result<Pairs>(Connection&)> job = [key = std::move(import_key), after_idx,
                                                   limit](Connection& c) -> Result<Pairs> {
    return c.QueryRows(kImportedIds, {key, after_idx, limit}, [](const Row& r) {
      return std::pair<int64_t, int64_t>{Int(r[0]), Int(r[1])};
    });
  };
  co_return co_await store_.Run<Pairs>(std::move(job));
}

Awaitable<Status> CommentTable::SetAnswers(std::vector<std::pair<int64_t, int64_t>> answers) {
  std::function<Result<bool>(Connection&)> job =
      [answers = std::move(answers)](Connection& c) -> Result<bool> {
    PL_CHECK(c.Transaction([&](Connection& tx) -> Status {
      for (const auto& [id, answered] : answers) {
        PL_CHECK(tx.Query(kSetAnswers, {id, answered}));
      }
      return Status{};
    }));
    return true;
  };
  PL_CO_CHECK(co_await store_.Run<bool>(std::move(job)));
  co_return Status{};
}

}  // namespace plaudit::sql
