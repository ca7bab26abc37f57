// CommentTable's writes of imported comments (`import --from`, transfer/foreign_import.hpp).
#include <algorithm>
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
constexpr std::string_view kVerifiedAddresses =
    "SELECT id, email FROM users WHERE email IS NOT NULL AND email_verified_at IS NOT NULL "
    "AND deleted_at IS NULL ORDER BY id";
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
  Authors(int64_t guest, const VerifiedAddresses* users) : guest_(guest), users_(users) {}

  struct Author {
    int64_t id = 0;
    Value name;   // a guest's; null for a user's comment
    Value email;  // a guest's, or null
  };

  Result<Author> Of(Connection& tx, const ImportedComment& c) {
    if (users_ != nullptr && !c.guest_email.empty()) {
      // Only a verified address: one anyone may type in does not take a stranger's comments.
      const auto user = users_->find(AddressKey(c.guest_email));
      if (user != users_->end()) {
        return Author{user->second, Value{nullptr}, Value{nullptr}};
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

  int64_t guest_;
  const VerifiedAddresses* users_;    // null: comments stay guests'
  std::map<std::string, bool> held_;  // guest name key → a user's
};

// Every article's row, in ascending order, before any comment's: the like flush takes the
// rows of several articles in that order and then their comments', so an import that took an
// article, then its comments, then the next article could wait on a flush waiting on it.
Status LockArticles(Connection& tx, const std::vector<ImportedArticle>& batches) {
  std::map<int64_t, int64_t> seqs;  // article → the thread seq its batch was stamped with
  for (const ImportedArticle& a : batches) {
    int64_t& seq = seqs[a.article_id];
    seq = std::max(seq, a.stamp.seq);
  }
  for (const auto& [article_id, seq] : seqs) {
    PL_TRY(auto lock, tx.Query(kThreadSeq, {article_id, seq}));
    if (lock.affected == 0) {
      return Fail(ErrorCode::kNotFound, "no such article");
    }
  }
  return Status{};
}

// One article's imported comments, inside the caller's transaction, its row locked.
Status WriteArticle(Connection& tx, const std::string& key, Authors& authors,
                    const ImportedArticle& a, CommentWrite& out) {
  const int64_t article_id = a.article_id;
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
    std::string import_key, std::shared_ptr<const VerifiedAddresses> users,
    std::vector<ImportedArticle> batches) {
  using Writes = std::vector<CommentWrite>;
  std::function<Result<Writes>(Connection&)> job =
      [key = std::move(import_key), users = std::move(users),
       batches = std::move(batches)](Connection& conn) -> Result<Writes> {
    Writes out;
    auto st = conn.Transaction([&](Connection& tx) -> Status {
      out.assign(batches.size(), CommentWrite{});
      PL_TRY(auto guest, tx.QueryInt(kGuestAccount));
      if (!guest) {
        return Fail(ErrorCode::kInternal, "no '@guest' account");
      }
      ShardRaises shards;
      Authors authors(*guest, users.get());
      PL_CHECK(LockArticles(tx, batches));
      for (size_t i = 0; i < batches.size(); ++i) {
        PL_CHECK(WriteArticle(tx, key, authors, batches[i], out[i]));
        shards.Hold(batches[i].stamp);
      }
      return shards.Raise(tx);  // after every article's row (ShardRaises says why)
    });
    PL_CHECK(st);
    return out;
  };
  co_return co_await store_.Run<Writes>(std::move(job));
}

std::string AddressKey(std::string_view email) {
  std::string key(email);
  for (char& ch : key) {
    if (ch >= 'A' && ch <= 'Z') {
      ch = static_cast<char>(ch - 'A' + 'a');
    }
  }
  return key;
}

Awaitable<Result<VerifiedAddresses>> CommentTable::VerifiedUserAddresses() {
  std::function<Result<VerifiedAddresses>(Connection&)> job =
      [](Connection& c) -> Result<VerifiedAddresses> {
    PL_TRY(auto r, c.Query(kVerifiedAddresses, {}));
    VerifiedAddresses out;
    for (const Row& row : r.rows) {
      out.emplace(AddressKey(Text(row[1])), Int(row[0]));  // the oldest account keeps it
    }
    return out;
  };
  co_return co_await store_.Run<VerifiedAddresses>(std::move(job));
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
