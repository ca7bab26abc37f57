#include "sql/search.hpp"

#include <algorithm>
#include <string_view>

#include "sql/dialect.hpp"
#include "sql/query_rows.hpp"

namespace plaudit::sql {
namespace {

// Jobs are named std::function variables, never lambda temporaries inside co_await (GCC 12).

constexpr std::string_view kLockCursor =
    "UPDATE plaudit_meta SET value = value WHERE \"key\" = 'search_through'";
constexpr std::string_view kReadMeta = "SELECT value FROM plaudit_meta WHERE \"key\" = $1";
constexpr std::string_view kForgetMeta = "DELETE FROM plaudit_meta WHERE \"key\" = $1";
constexpr std::string_view kThrough = "search_through";
constexpr std::string_view kRebuild = "search_rebuild";
// The cursor's value for an index to build anew: the row stays, as the indexers' lock.
constexpr int64_t kUnbuilt = -1;

constexpr std::string_view kLastChange = "SELECT COALESCE(MAX(id), 0) FROM article_changes";
constexpr std::string_view kFirstChange = "SELECT MIN(id) FROM article_changes";
constexpr std::string_view kChanges =
    "SELECT id, article_id FROM article_changes WHERE id > $1 ORDER BY id LIMIT $2";
constexpr std::string_view kArticlesFrom =
    "SELECT id, kind, status, title, content FROM articles WHERE id > $1 ORDER BY id LIMIT $2";
constexpr std::string_view kArticlesIn =
    "SELECT id, kind, status, title, content FROM articles WHERE id IN ";

IndexedArticle ReadArticle(const Row& row) {
  return IndexedArticle{Int(row[0]), Text(row[1]), Text(row[2]), Text(row[3]), Text(row[4])};
}

// Each dialect's index: its table, and how a doc goes in and out.
struct Index {
  std::string_view clear;
  std::string_view remove;  // $1 the article
  std::string_view insert;  // $1 the article, $2 title terms, $3 body terms, $4 body text
};

Index IndexOf(Dialect d) {
  switch (d) {
    case Dialect::kSqlite:
      return {"DELETE FROM search_index", "DELETE FROM search_index WHERE rowid = $1",
              "INSERT INTO search_index (rowid, title_terms, body_terms, body_text) "
              "VALUES ($1, $2, $3, $4)"};
    case Dialect::kPostgres:
      return {"DELETE FROM search_docs", "DELETE FROM search_docs WHERE article_id = $1",
              "INSERT INTO search_docs (article_id, body_text, terms) VALUES ($1, $4, "
              "setweight(to_tsvector('simple', $2), 'A') || "
              "setweight(to_tsvector('simple', $3), 'B'))"};
    case Dialect::kMysql:
      break;
  }
  return {"DELETE FROM search_docs", "DELETE FROM search_docs WHERE article_id = $1",
          "INSERT INTO search_docs (article_id, title_terms, body_terms, body_text) "
          "VALUES ($1, $2, $3, $4)"};
}

Result<std::optional<int64_t>> ReadMetaInt(Connection& c, std::string_view key) {
  PL_TRY(auto r, c.Query(kReadMeta, {std::string(key)}));
  if (r.rows.empty()) {
    return std::optional<int64_t>();
  }
  return std::optional<int64_t>(Int(r.rows[0][0]));
}

// In place when the row is there (an upsert): the cursor's row is the indexers' lock
// (kLockCursor), and a row deleted and inserted again would let a waiting step through without
// it. Two first steps, with no cursor row to lock yet, both insert: the upsert lets the second
// update instead of failing on the key.
Status SetMeta(Connection& c, std::string_view key, int64_t value) {
  return sql::SetMeta(c, key, std::to_string(value));
}

// Replaces the article's doc with what `make` says of it (nothing: no doc).
Status Put(Connection& c, const Index& index, int64_t id, const IndexedArticle* article,
           const MakeSearchDoc& make) {
  PL_CHECK(c.Query(index.remove, {id}));
  if (article == nullptr) {
    return {};
  }
  std::optional<SearchDoc> doc = make(*article);
  if (!doc) {
    return {};
  }
  PL_CHECK(c.Query(index.insert, {id, doc->title_terms, doc->body_terms, doc->body_text}));
  return {};
}

Result<int64_t> StepIn(Connection& c, int64_t limit, const MakeSearchDoc& make) {
  const Index index = IndexOf(c.dialect());
  PL_CHECK(c.Query(kLockCursor));
  PL_TRY(auto through, ReadMetaInt(c, kThrough));
  if (through && *through == kUnbuilt) {
    through.reset();
  }
  if (!through) {
    // Never built (or reset): empty it, and rebuild from the first article; the changes
    // after the feed's newest are read once the rebuild is through.
    PL_TRY(const auto last, c.QueryInt(kLastChange));
    PL_CHECK(c.Query(index.clear));
    PL_CHECK(SetMeta(c, kThrough, last.value_or(0)));
    PL_CHECK(SetMeta(c, kRebuild, 0));
    return 1;
  }
  PL_TRY(const auto rebuild, ReadMetaInt(c, kRebuild));
  if (rebuild) {
    PL_TRY(auto rows, c.QueryRows(kArticlesFrom, {*rebuild, limit}, ReadArticle));
    if (rows.empty()) {
      PL_CHECK(c.Query(kForgetMeta, {std::string(kRebuild)}));
      return 1;  // through; the changes since it began come next
    }
    for (const IndexedArticle& a : rows) {
      PL_CHECK(Put(c, index, a.id, &a, make));
    }
    PL_CHECK(SetMeta(c, kRebuild, rows.back().id));
    return static_cast<int64_t>(rows.size());
  }
  PL_TRY(const auto first, c.QueryInt(kFirstChange));
  if (first && *first > *through + 1) {
    // The feed was trimmed past the cursor: what it dropped is unknown. Rebuild.
    PL_CHECK(SetMeta(c, kThrough, kUnbuilt));
    return 1;
  }
  PL_TRY(auto changes, c.QueryRows(kChanges, {*through, limit}, [](const Row& row) {
    return std::pair<int64_t, int64_t>(Int(row[0]), Int(row[1]));
  }));
  if (changes.empty()) {
    return 0;
  }
  if (changes.front().first != *through + 1) {
    // Ids have no gaps (article_changes.hpp): a trim committed between the check above and
    // this read took the ones in between. Rebuild, as above.
    PL_CHECK(SetMeta(c, kThrough, kUnbuilt));
    return 1;
  }
  std::vector<int64_t> ids;
  for (const auto& change : changes) {
    ids.push_back(change.second);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<Value> params;
  const std::string in = InList(ids, params);
  PL_TRY(auto rows, c.QueryRows(std::string(kArticlesIn) + in, params, ReadArticle));
  for (int64_t id : ids) {
    auto it = std::find_if(rows.begin(), rows.end(),
                           [id](const IndexedArticle& a) { return a.id == id; });
    PL_CHECK(Put(c, index, id, it == rows.end() ? nullptr : &*it, make));
  }
  PL_CHECK(SetMeta(c, kThrough, changes.back().first));
  return static_cast<int64_t>(changes.size());
}

// The match expression of each dialect; tokens are [a-z0-9] (text/search_terms.hpp), so
// they need no quoting in any of them.
std::string MatchText(Dialect d, const std::vector<std::vector<std::string>>& phrases) {
  std::string out;
  for (const auto& phrase : phrases) {
    std::string joined;
    for (const std::string& token : phrase) {
      if (!joined.empty()) {
        joined += d == Dialect::kPostgres ? " <-> " : " ";
      }
      joined += token;
    }
    switch (d) {
      case Dialect::kSqlite:
        out += out.empty() ? "" : " AND ";
        out += "\"" + joined + "\"";
        break;
      case Dialect::kPostgres:
        out += out.empty() ? "" : " & ";
        out += "(" + joined + ")";
        break;
      case Dialect::kMysql:
        out += out.empty() ? "" : " ";
        out += "+\"" + joined + "\"";
        break;
    }
  }
  return out;
}

// The statements of each dialect's search: the matches ranked (only the newest
// kMaxCandidates of them: ranking reads each match's terms, and a word in most articles
// made a query rank every article — 4.3 s on PostgreSQL, 0.6 s on SQLite, 100,000 articles,
// bench/search.py), counted, and the page's texts read.
struct FindStatements {
  std::string count;  // $1 the match, then the kind when by kind
  std::string page;   // the same, then the page's limit and offset: the ids, best first
  std::string texts;  // + an IN list of ids: (id, body text)
};

FindStatements FindSql(Dialect d, bool by_kind) {
  // Published articles and posts only, whatever the index holds.
  std::string listed = " WHERE a.status = 'published' AND a.kind IN ('article', 'post')";
  if (by_kind) {
    listed += " AND a.kind = $2";
  }
  const std::string page = by_kind ? " LIMIT $3 OFFSET $4" : " LIMIT $2 OFFSET $3";
  const std::string cap = " ORDER BY id DESC LIMIT " + std::to_string(kMaxCandidates) + ")";
  switch (d) {
    case Dialect::kSqlite: {
      // bm25 in the candidates' own query (FTS5 reckons it only there, and only for the rows
      // it hands out); CROSS JOIN: SQLite walks the candidates and looks each article up
      // (left to itself it walked every published article and probed the index for each).
      const std::string from =
          " FROM (SELECT rowid AS id, bm25(search_index, 4.0, 1.0) AS score FROM search_index"
          " WHERE search_index MATCH $1" +
          cap + " m CROSS JOIN articles a ON a.id = m.id" + listed;
      return {"SELECT COUNT(*)" + from,
              "SELECT m.id" + from + " ORDER BY m.score, m.id DESC" + page,
              "SELECT rowid, body_text FROM search_index WHERE rowid IN "};
    }
    case Dialect::kPostgres: {
      const std::string from =
          " FROM (SELECT article_id AS id FROM search_docs"
          " WHERE terms @@ to_tsquery('simple', $1)" +
          cap + " m JOIN articles a ON a.id = m.id";
      return {"SELECT COUNT(*)" + from + listed,
              "SELECT m.id" + from + " JOIN search_docs s ON s.article_id = m.id" + listed +
                  " ORDER BY ts_rank(s.terms, to_tsquery('simple', $1)) DESC, m.id DESC" + page,
              "SELECT article_id, body_text FROM search_docs WHERE article_id IN "};
    }
    case Dialect::kMysql:
      break;
  }
  const std::string from =
      " FROM (SELECT article_id AS id FROM search_docs"
      " WHERE MATCH (title_terms, body_terms) AGAINST ($1 IN BOOLEAN MODE)" +
      cap + " m JOIN articles a ON a.id = m.id";
  return {"SELECT COUNT(*)" + from + listed,
          "SELECT m.id" + from + " JOIN search_docs s ON s.article_id = m.id" + listed +
              " ORDER BY MATCH (s.title_terms) AGAINST ($1 IN BOOLEAN MODE) * 4 + "
              "MATCH (s.title_terms, s.body_terms) AGAINST ($1 IN BOOLEAN MODE) DESC, "
              "m.id DESC" +
              page,
          "SELECT article_id, body_text FROM search_docs WHERE article_id IN "};
}

}  // namespace

Awaitable<Result<int64_t>> SearchTable::Step(int64_t limit, MakeSearchDoc make) {
  std::function<Result<int64_t>(Connection&)> job =
      [limit, make = std::move(make)](Connection& c) -> Result<int64_t> {
    int64_t done = 0;
    PL_CHECK(c.Transaction([&](Connection& tx) -> Status {
      PL_TRY(done, StepIn(tx, limit, make));
      return {};
    }));
    return done;
  };
  co_return co_await store_.Run<int64_t>(std::move(job));
}

Awaitable<Status> SearchTable::Reset() {
  std::function<Result<bool>(Connection&)> job = [](Connection& c) -> Result<bool> {
    PL_CHECK(c.Transaction([](Connection& tx) -> Status {
      PL_CHECK(tx.Query(kLockCursor));
      PL_CHECK(SetMeta(tx, kThrough, kUnbuilt));
      PL_CHECK(tx.Query(kForgetMeta, {std::string(kRebuild)}));
      return {};
    }));
    return true;
  };
  PL_CO_CHECK(co_await store_.Run<bool>(std::move(job)));
  co_return Status{};
}

Awaitable<Result<SearchHits>> SearchTable::Find(std::vector<std::vector<std::string>> phrases,
                                                std::optional<std::string> kind, int64_t offset,
                                                int64_t limit, MakeSnippet snippet) {
  std::function<Result<SearchHits>(Connection&)> job =
      [phrases = std::move(phrases), kind = std::move(kind), offset, limit,
       snippet = std::move(snippet)](Connection& c) -> Result<SearchHits> {
    SearchHits out;
    if (phrases.empty()) {
      return out;
    }
    const FindStatements sql = FindSql(c.dialect(), kind.has_value());
    std::string match = MatchText(c.dialect(), phrases);
    if (c.dialect() == Dialect::kSqlite) {
      match = "{title_terms body_terms} : (" + match + ")";  // not the snippet text
    }
    std::vector<Value> params{match};
    if (kind) {
      params.emplace_back(*kind);
    }
    PL_TRY(const auto total, c.QueryInt(sql.count, params));
    out.total = total.value_or(0);
    if (out.total <= offset) {
      return out;
    }
    params.emplace_back(limit);
    params.emplace_back(offset);
    PL_TRY(const auto ids,
           c.QueryRows(sql.page, params, [](const Row& row) { return Int(row[0]); }));
    if (ids.empty()) {
      return out;
    }
    std::vector<Value> in_params;
    const std::string in = InList(ids, in_params);
    PL_TRY(const auto texts, c.QueryRows(sql.texts + in, in_params, [](const Row& row) {
      return std::pair<int64_t, std::string>(Int(row[0]), Text(row[1]));
    }));
    for (int64_t id : ids) {
      auto it =
          std::find_if(texts.begin(), texts.end(), [id](const auto& t) { return t.first == id; });
      out.hits.push_back(
          SearchHit{id, snippet(it == texts.end() ? std::string_view() : it->second)});
    }
    return out;
  };
  co_return co_await store_.Run<SearchHits>(std::move(job));
}

}  // namespace plaudit::sql
