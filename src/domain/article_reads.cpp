// ArticleService's reads: one article from the cache, filled from SQL on a miss (versioned and
// checked against the shard's birth mark), and who may see many at once.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "domain/articles.hpp"

namespace plaudit::domain {

Awaitable<Result<std::optional<Article>>> ArticleService::FillFromSql(
    int64_t id, bool with_content, std::optional<PrefetchedRow> first) {
  // The shard's birth mark is read before the row: if the dataset is emptied (FLUSHALL)
  // after that, the mark changes and the fill writes nothing, so a row read before a delete
  // whose floor the FLUSHALL took can never be cached (article_put.lua). Then SQL is read
  // again, after a check when the mark is gone. A Redis restarted meanwhile (the client
  // reconnected) may have lost a floor while keeping the mark (an AOF everysec crash): the
  // row is read again then too.
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::optional<PrefetchedRow> got = std::move(first);
    first.reset();
    if (!got) {
      const uint64_t generation = cache_.Generation();
      PL_CO_TRY(auto token, co_await cache_.FillToken(id));
      if (token) {
        PL_CO_TRY(auto found, co_await table_.Find(id, with_content));
        if (!found) {
          co_return std::optional<Article>{};
        }
        got = PrefetchedRow{std::move(*token), std::move(*found), generation};
      }
    }
    using State = redis::ArticleCache::Filled::State;
    State state = State::kUnchecked;
    if (got && got->generation != cache_.Generation()) {
      state = State::kStale;  // reconnected since the mark was read
    } else if (got) {
      Article a = std::move(got->row);  // with its content when asked for
      const std::string* body = a.content ? &*a.content : nullptr;
      PL_CO_TRY(auto filled, co_await cache_.Fill(a, got->token, body));
      state = filled.state;
      if (state == State::kGone) {
        co_return std::optional<Article>{};
      }
      if (state == State::kFilled) {
        // The hash as it is now: a racing write or fill may have cached a newer version,
        // and views counted since the row was read are there.
        std::optional<Article>& live = filled.live;
        if (!live) {
          co_return std::optional<Article>(std::move(a));
        }
        if (live->ver == a.ver) {
          live->content = std::move(a.content);
        }
        co_return std::move(live);
      }
    }
    if (state == State::kStale) {
      continue;  // read SQL again: it has the newer row
    }
    if (freshness_ == nullptr) {
      break;
    }
    PL_CO_CHECK(co_await Recheck());
  }
  co_return Fail(ErrorCode::kUnavailable, "the article cache did not settle; retry");
}

Awaitable<Result<Article>> ArticleService::LoadIntoCache(int64_t id) {
  std::function<Awaitable<Result<Article>>()> loader = [this, id]() -> Awaitable<Result<Article>> {
    PL_CO_TRY(auto filled, co_await FillFromSql(id, /*with_content=*/true, std::nullopt));
    if (!filled) {
      co_return Fail(ErrorCode::kNotFound, "no such article");
    }
    co_return std::move(*filled);
  };
  co_return co_await loads_.Do(id, std::move(loader));
}

Awaitable<Result<redis::ArticleCache::Cached>> ArticleService::Cached(int64_t id, bool count_view,
                                                                      bool with_body) {
  if (!Checked()) {
    PL_CO_CHECK(co_await EnsureChecked());
  }
  if (count_view && freshness_ != nullptr && !freshness_->ViewsChecked()) {
    PL_CO_CHECK(co_await freshness_->EnsureViews());
  }
  auto cached = co_await cache_.Get(id, count_view, with_body);
  PL_CO_CHECK(cached);
  if (!*cached) {
    PL_CO_CHECK(co_await LoadIntoCache(id));
    // Read again through Redis so the view is counted by the same atomic script.
    cached = co_await cache_.Get(id, count_view, with_body);
    PL_CO_CHECK(cached);
    if (!*cached) {
      co_return Fail(ErrorCode::kUnavailable, "article cache did not fill");
    }
  }
  co_return std::move(**cached);
}

Awaitable<Result<Article>> ArticleService::Peek(int64_t id) {
  if (!Checked()) {
    PL_CO_CHECK(co_await EnsureChecked());
  }
  PL_CO_TRY(auto access, co_await cache_.GetAccess(id));
  if (access) {
    co_return std::move(*access);
  }
  co_return co_await LoadIntoCache(id);
}

Awaitable<Status> ArticleService::SeeMissed(const std::optional<Principal>& viewer,
                                            const std::vector<int64_t>& ids,
                                            const std::vector<size_t>& missed,
                                            std::vector<bool>& seen) {
  if (missed.empty()) {
    co_return Status{};
  }
  // Ids known to name nothing answer at once (a stranger's or a stale page's ids each cost a
  // query and four Redis commands: 4.67x a batch of known ones, issue 47); SQL has the rest,
  // in one query, and its misses are remembered.
  std::vector<int64_t> missed_ids;
  missed_ids.reserve(missed.size());
  for (size_t i : missed) {
    missed_ids.push_back(ids[i]);
  }
  PL_CO_TRY(const store::UnknownIds::Look look, co_await unknown_.Sort(missed_ids));
  std::vector<int64_t> asked;
  std::vector<size_t> asked_at;  // position in missed_ids
  for (size_t j = 0; j < missed_ids.size(); ++j) {
    if (!look.unknown[j]) {
      asked.push_back(missed_ids[j]);
      asked_at.push_back(j);
    }
  }
  std::vector<std::optional<Article>> filled(asked.size());
  PL_CO_TRY(const std::vector<bool> absent, co_await FillMisses(asked, filled));
  for (size_t k = 0; k < asked.size(); ++k) {
    const size_t j = asked_at[k];
    if (filled[k]) {
      seen[missed[j]] = CanSee(*filled[k], viewer);
    } else if (absent[k]) {
      unknown_.Remember(look, j, asked[k]);
    }
  }
  co_return Status{};
}

Awaitable<Result<std::vector<bool>>> ArticleService::VisibleMany(
    const std::optional<Principal>& viewer, std::vector<int64_t> ids) {
  // Each article once (ids <= 0 name none). Published ones (nearly all, on a real page) are
  // answered by one ZMSCORE of the published index; only the others cost more: their cached
  // access fields in one pipelined round trip, and what is not cached from SQL in one query,
  // but for ids known to name nothing (SeeMissed).
  std::vector<int64_t> unique;
  unique.reserve(ids.size());
  for (int64_t id : ids) {
    if (id > 0) {
      unique.push_back(id);
    }
  }
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  std::vector<bool> seen(unique.size(), false);  // by position in `unique`
  if (!unique.empty()) {
    if (!Checked()) {
      PL_CO_CHECK(co_await EnsureChecked());
    }
    PL_CO_TRY(auto listed, co_await cache_.InPublishedIndex(unique));
    std::vector<size_t> unlisted;
    for (size_t i = 0; i < unique.size(); ++i) {
      if ((listed)[i]) {
        seen[i] = true;
      } else {
        unlisted.push_back(i);
      }
    }
    if (!unlisted.empty()) {
      std::vector<int64_t> unlisted_ids;
      unlisted_ids.reserve(unlisted.size());
      for (size_t i : unlisted) {
        unlisted_ids.push_back(unique[i]);
      }
      PL_CO_TRY(auto cached, co_await cache_.GetAccessMany(unlisted_ids));
      std::vector<size_t> missed;
      for (size_t j = 0; j < unlisted.size(); ++j) {
        const std::optional<Article>& a = (cached)[j];
        if (!a) {
          missed.push_back(unlisted[j]);
          continue;
        }
        seen[unlisted[j]] = CanSee(*a, viewer);
      }
      PL_CO_CHECK(co_await SeeMissed(viewer, unique, missed, seen));
    }
  }
  std::vector<bool> out;
  out.reserve(ids.size());
  for (int64_t id : ids) {
    auto at = std::lower_bound(unique.begin(), unique.end(), id);
    out.push_back(id > 0 && at != unique.end() && *at == id && seen[at - unique.begin()]);
  }
  co_return out;
}

Awaitable<Result<Article>> ArticleService::Get(const std::optional<Principal>& viewer, int64_t id,
                                               bool count_view, bool with_body) {
  PL_CO_TRY(auto cached, co_await Cached(id, count_view, with_body));
  std::optional<Article> a = std::move(cached.article);
  if (!CanSee(*a, viewer)) {
    co_return Fail(ErrorCode::kNotFound, "no such article");
  }
  if (!with_body) {
    co_return *a;
  }
  if (cached.body) {
    a->content = std::move(cached.body);
  } else {
    PL_CO_TRY(auto row, co_await table_.Find(id, true));
    if (!row) {
      co_return Fail(ErrorCode::kNotFound, "no such article");
    }
    // A versioned write of the whole row: the body is cached only if its version is the
    // hash's (an older hash takes the row's fields too; a newer one keeps its own, and the
    // body is refilled on a later read).
    Article row_article = std::move(*row);
    const std::string* body = row_article.content ? &*row_article.content : nullptr;
    auto refill = co_await cache_.Write(row_article, body);
    if (!refill) {
      spdlog::warn("could not refill body of article {}", id);
    }
    if (row_article.ver != a->ver) {
      // The row changed since the hash was read (a PATCH between the two reads): answer the
      // row as a whole, checked again: an unpublish's new content must not go out under the
      // published hash's check. Counters stay the cache's (Redis owns them).
      row_article.view_count = a->view_count;
      row_article.like_count = a->like_count;
      row_article.comment_count = a->comment_count;
      row_article.comment_ver = a->comment_ver;
      if (!CanSee(row_article, viewer)) {
        co_return Fail(ErrorCode::kNotFound, "no such article");
      }
      *a = std::move(row_article);
    } else {
      a->content = std::move(row_article.content);
    }
  }
  co_return *a;
}

}  // namespace plaudit::domain
