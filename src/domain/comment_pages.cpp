// CommentService's reads: one comment (Peek, Visible, Get), whether comments may be seen
// (VisibleMany), and pages of threads and replies in a fixed number of round trips.
#include <algorithm>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <map>

#include "common/random_id.hpp"
#include "common/when_all.hpp"
#include "domain/comments.hpp"
#include "domain/cursor.hpp"

namespace plaudit::domain {

using namespace boost::asio::experimental::awaitable_operators;

namespace {

char SortTag(CommentSort s) {
  constexpr std::string_view kTags = "noh";  // in CommentSort's order: new, old, hot
  return kTags.at(static_cast<size_t>(s));
}

}  // namespace

Awaitable<Result<Comment>> CommentService::Peek(int64_t id) {
  if (!articles_.Checked()) {
    PL_CO_CHECK(co_await articles_.EnsureChecked());
  }
  const std::vector<int64_t> ids{id};
  PL_CO_TRY(std::vector<redis::CachedComment> cached, co_await cache_.GetMany(ids));
  if (cached.front()) {
    co_return std::move(*cached.front());
  }
  PL_CO_TRY(const std::optional<sql::CommentRow> row, co_await table_.Find(id));
  if (!row) {
    co_return Fail(ErrorCode::kNotFound, "no such comment");
  }
  const std::vector<Comment> found{sql::ToComment(*row)};
  PL_CO_CHECK(co_await cache_.Put(row->article_id, found));
  co_return found.front();
}

namespace {

bool Moderates(const std::optional<Principal>& viewer) {
  return viewer && HasRole(viewer->role, Role::kModerator);
}

bool Wrote(const std::optional<Principal>& viewer, const Comment& c) {
  return viewer && viewer->id == c.author.id;
}

// A live pending top-level comment keeps its replies from readers.
bool HidesReplies(const Comment& top) {
  return !top.deleted && top.status == CommentStatus::kPending;
}

}  // namespace

Awaitable<Result<Comment>> CommentService::Visible(const std::optional<Principal>& viewer,
                                                   int64_t id) {
  PL_CO_TRY(Comment c, co_await Peek(id));
  const bool privileged = Moderates(viewer) || Wrote(viewer, c);
  if (!c.Listed() && !(privileged && !c.deleted)) {
    co_return Fail(ErrorCode::kNotFound, "no such comment");
  }
  if (c.parent_id && !privileged) {
    PL_CO_TRY(const Comment top, co_await Peek(*c.parent_id));
    if (HidesReplies(top) && !Wrote(viewer, top)) {
      co_return Fail(ErrorCode::kNotFound, "no such comment");
    }
  }
  auto article = co_await articles_.Get(viewer, c.article_id, false, false);
  if (!article) {
    if (article.error().code == ErrorCode::kNotFound) {
      co_return Fail(ErrorCode::kNotFound, "no such comment");
    }
    co_return tl::unexpected(article.error());
  }
  if (!privileged && !c.deleted && !c.Approved()) {
    // A spam top-level comment listed for its replies: a placeholder, as a deleted one is.
    c.body.clear();
    c.deleted = true;
  }
  if (!privileged && c.deleted) {
    c.status = CommentStatus::kApproved;  // as Hydrate says
  }
  co_return c;
}

Awaitable<Result<std::vector<bool>>> CommentService::VisibleMany(
    const std::optional<Principal>& viewer, std::vector<int64_t> ids) {
  // Every id's placement and standing from Redis in one round trip (a standing changes, so
  // memory cannot answer it), what Redis does not hold from SQL in one query, but for ids
  // known to name nothing (UnknownComments); then the top-level comments of replies, whose
  // hold hides them; then the articles.
  if (!articles_.Checked()) {
    PL_CO_CHECK(co_await articles_.EnsureChecked());
  }
  std::vector<std::optional<Comment>> found(ids.size());
  PL_CO_TRY(std::vector<redis::CachedComment> placed, co_await cache_.GetPlacements(ids));
  std::vector<size_t> missed;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (placed[i]) {
      found[i] = std::move(*placed[i]);
    } else {
      missed.push_back(i);
    }
  }
  if (!missed.empty()) {
    // Not cached: ids known to name nothing answer at once (issue 41: each cost a trip to
    // SQL and three to Redis); SQL has the rest, in one query, and its misses are remembered.
    std::vector<int64_t> missed_ids;
    missed_ids.reserve(missed.size());
    for (size_t i : missed) {
      missed_ids.push_back(ids[i]);
    }
    PL_CO_TRY(const UnknownComments::Look look, co_await unknown_.Sort(missed_ids));
    std::vector<int64_t> asked;
    std::vector<size_t> asked_at;  // position in missed_ids
    for (size_t j = 0; j < missed_ids.size(); ++j) {
      if (look.unknown[j]) {
        continue;
      }
      asked.push_back(missed_ids[j]);
      asked_at.push_back(j);
    }
    if (!asked.empty()) {
      PL_CO_TRY(const std::vector<sql::CommentRow> rows, co_await table_.FindMany(asked));
      std::map<int64_t, std::vector<Comment>> by_article;
      std::map<int64_t, const sql::CommentRow*> row_of;
      for (const auto& row : rows) {
        row_of[row.id] = &row;
        by_article[row.article_id].push_back(sql::ToComment(row));
      }
      // Cached as Peek caches one, so the next look finds their placements.
      for (const auto& [article_id, comments] : by_article) {
        PL_CO_CHECK(co_await cache_.Put(article_id, comments));
      }
      for (size_t k = 0; k < asked.size(); ++k) {
        const size_t j = asked_at[k];
        if (auto r = row_of.find(asked[k]); r != row_of.end()) {
          found[missed[j]] = sql::ToComment(*r->second);
        } else {
          unknown_.Remember(look, j, asked[k]);
        }
      }
    }
  }
  // 0 (an unknown comment, or one this viewer may not see) is no article: false.
  std::vector<int64_t> articles(ids.size(), 0);
  std::map<int64_t, bool> tops;  // top-level comment → hides its replies (filled below)
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!found[i]) {
      continue;
    }
    const Comment& c = *found[i];
    Learn(c);
    const bool privileged = Moderates(viewer) || Wrote(viewer, c);
    if (!c.Listed() && !(privileged && !c.deleted)) {
      continue;
    }
    // A spam placeholder's likes are as hidden as its text.
    if (!privileged && !c.deleted && !c.Approved()) {
      continue;
    }
    if (c.parent_id && !privileged) {
      tops.emplace(*c.parent_id, false);
    }
    articles[i] = c.article_id;
  }
  if (!tops.empty()) {
    std::vector<int64_t> top_ids;
    top_ids.reserve(tops.size());
    for (const auto& [id, hides] : tops) {
      top_ids.push_back(id);
    }
    PL_CO_TRY(std::vector<redis::CachedComment> top_placed, co_await cache_.GetPlacements(top_ids));
    for (size_t k = 0; k < top_ids.size(); ++k) {
      std::optional<Comment> top = std::move(top_placed[k]);
      if (!top) {
        auto peeked = co_await Peek(top_ids[k]);
        if (!peeked) {
          co_return tl::unexpected(peeked.error());
        }
        top = std::move(*peeked);
      }
      tops[top_ids[k]] = HidesReplies(*top) && !Wrote(viewer, *top);
    }
    for (size_t i = 0; i < ids.size(); ++i) {
      if (articles[i] != 0 && found[i]->parent_id) {
        auto t = tops.find(*found[i]->parent_id);
        if (t != tops.end() && t->second) {
          articles[i] = 0;
        }
      }
    }
  }
  co_return co_await articles_.VisibleMany(viewer, articles);
}

void CommentService::Learn(const Comment& c) {
  if (article_of_.size() >= kArticleOfCapacity) {
    article_of_.clear();
  }
  article_of_.emplace(c.id, Placement{c.article_id, c.parent_id.value_or(0)});
}

Awaitable<Result<CommentService::PageRead>> CommentService::ReadPage(int64_t article_id) {
  // Who may see the article and the thread's version: two HMGETs, one round trip. The
  // generation is read first: a reconnect between it and the reads makes the version one
  // that no page was cached under (a Redis that came back older may repeat a version).
  std::function<Awaitable<Result<PageRead>>()> load =
      [this, article_id]() -> Awaitable<Result<PageRead>> {
    PageRead read;
    read.generation = cache_.Generation();
    auto article_op = articles_.Peek(article_id);
    auto version_op = cache_.ThreadVersion(article_id);
    auto both = co_await (std::move(article_op) && std::move(version_op));
    auto& article = std::get<0>(both);
    if (!article) {
      co_return tl::unexpected(article.error());
    }
    auto& version = std::get<1>(both);
    if (!version) {
      co_return tl::unexpected(version.error());
    }
    read.article = std::move(*article);
    read.version = std::move(version->version);
    read.unborn = version->unborn;
    co_return read;
  };
  co_return co_await page_reads_.Do(article_id, std::move(load));
}

Awaitable<Result<std::optional<CommentService::ThreadVersion>>> CommentService::PageVersion(
    const std::optional<Principal>& viewer, int64_t article_id) {
  using Version = std::optional<ThreadVersion>;
  if (!articles_.Checked()) {
    PL_CO_CHECK(co_await articles_.EnsureChecked());
  }
  // Read after this request arrived (page_reads_ never hands it an earlier read), so it
  // names every change acknowledged before.
  PL_CO_TRY(PageRead read, co_await ReadPage(article_id));
  if (!CanSee(read.article, viewer)) {
    co_return Fail(ErrorCode::kNotFound, "no such article");
  }
  if (read.unborn) {
    // A cache an earlier release built: its version starts now, and pages are kept from the
    // next read on (this one is rendered uncached).
    PL_CO_CHECK(co_await cache_.BearVersion(article_id, RandomHexId()));
  }
  if (read.article.status != ArticleStatus::kPublished || !read.version ||
      read.generation != cache_.Generation()) {
    co_return Version{};
  }
  PL_CO_TRY(auto run, co_await articles_.ServerRun(read.generation));
  if (!run) {
    co_return Version{};  // another connection's run
  }
  co_return Version(ThreadVersion{read.generation, *run + "." + *read.version});
}

Awaitable<Result<Comment>> CommentService::Get(const std::optional<Principal>& viewer, int64_t id) {
  PL_CO_TRY(Comment c, co_await Visible(viewer, id));
  std::vector<Comment*> one{&c};
  PL_CO_CHECK(co_await AddLikes(viewer ? viewer->id : 0, one));
  co_return c;
}

Awaitable<Result<LikeState>> CommentService::GetLike(const std::optional<Principal>& viewer,
                                                     int64_t id) {
  PL_CO_CHECK(co_await Visible(viewer, id));
  const model::Target target = model::Target::Comment(id);
  co_return co_await likes_.Get(viewer ? viewer->id : 0, target);
}

Awaitable<Status> CommentService::AddLikes(int64_t user_id, std::vector<Comment*> comments) {
  std::vector<model::Target> targets;
  targets.reserve(comments.size());
  for (const Comment* c : comments) {
    targets.push_back(model::Target::Comment(c->id));
  }
  PL_CO_TRY(const std::vector<LikeState> states,
            co_await likes_.GetMany(user_id, std::move(targets)));
  for (size_t i = 0; i < comments.size(); ++i) {
    comments[i]->like_count = states[i].count;
    comments[i]->liked = states[i].liked;
  }
  co_return Status{};
}

Awaitable<Result<std::vector<Comment>>> CommentService::Hydrate(
    const std::vector<int64_t>& ids, std::vector<redis::CachedComment> cached) {
  std::vector<int64_t> missing;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!cached[i]) {
      missing.push_back(ids[i]);
    }
  }
  std::map<int64_t, Comment> loaded;
  if (!missing.empty()) {
    // Evicted or never cached: one SQL query for the page's misses, then back into Redis.
    PL_CO_TRY(const std::vector<sql::CommentRow> rows, co_await table_.FindMany(missing));
    std::vector<Comment> found = sql::ToComments(rows);
    if (!found.empty()) {
      PL_CO_CHECK(co_await cache_.Put(found.front().article_id, found));
    }
    for (auto& c : found) {
      loaded.emplace(c.id, std::move(c));
    }
  }
  std::vector<Comment> out;
  out.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    std::optional<Comment>& c = cached[i];
    if (!c) {
      auto it = loaded.find(ids[i]);
      if (it == loaded.end()) {
        continue;  // gone meanwhile
      }
      c = it->second;
    }
    if (!c->Listed()) {
      continue;
    }
    if (!c->deleted && !c->Approved()) {
      // A spam top-level comment listed for its replies: its text is nobody's to read here.
      c->body.clear();
      c->deleted = true;
    }
    // A placeholder reads as any deleted comment: not whether it was spam or held.
    if (c->deleted) {
      c->status = CommentStatus::kApproved;
    }
    out.push_back(std::move(*c));
  }
  co_return out;
}

Result<std::optional<std::pair<int64_t, int64_t>>> CommentService::ParseCursor(
    CommentSort sort, const PageRequest& req) {
  using After = std::optional<std::pair<int64_t, int64_t>>;  // (score, id)
  if (!req.cursor) {
    return After{};
  }
  After after = DecodeScoreCursor(*req.cursor, SortTag(sort));
  if (!after) {
    return Fail(ErrorCode::kInvalidArgument, "invalid cursor");
  }
  return after;
}

Awaitable<Result<std::optional<redis::ListPage>>> CommentService::FetchPage(
    int64_t article_id, std::optional<int64_t> parent, CommentSort sort, PageRequest req,
    std::optional<std::pair<int64_t, int64_t>> after) {
  const auto index =
      sort == CommentSort::kHot ? redis::CommentIndex::kByLikes : redis::CommentIndex::kByTime;
  const bool desc = sort != CommentSort::kOld;
  if (after) {
    co_return co_await cache_.PageAfter(article_id, parent, index, desc, after->first,
                                        after->second, req.size + 1);
  }
  co_return co_await cache_.Page(article_id, parent, index, desc, (req.page - 1) * req.size,
                                 req.size + 1);
}

Awaitable<Result<PageResult<Comment>>> CommentService::PageOf(
    const std::optional<Principal>& viewer, int64_t article_id, std::optional<int64_t> parent,
    CommentSort sort, PageRequest req, int64_t replies,
    Result<std::optional<redis::ListPage>> page) {
  PL_CO_TRY(const auto after, ParseCursor(sort, req));
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (!page) {
      co_return tl::unexpected(page.error());
    }
    if (*page) {
      break;
    }
    // The article's comment cache is missing: rebuild it from SQL, then read again.
    PL_CO_CHECK(co_await rebuilder_.EnsureLoaded(article_id));
    page = co_await FetchPage(article_id, parent, sort, req, after);
  }
  if (!page) {
    co_return tl::unexpected(page.error());
  }
  if (!*page) {
    co_return Fail(ErrorCode::kUnavailable, "comments are being rebuilt; retry");
  }
  auto& entries = (*page)->entries;
  const bool more = static_cast<int64_t>(entries.size()) > req.size;
  if (more) {
    entries.resize(static_cast<size_t>(req.size));
  }
  std::vector<int64_t> ids;
  ids.reserve(entries.size());
  for (const auto& e : entries) {
    ids.push_back(e.id);
  }

  // Round trip 2: the comments and their first reply ids.
  PL_CO_TRY(auto heads, co_await cache_.GetWithReplies(ids, parent ? 0 : replies));
  std::vector<std::vector<int64_t>> reply_ids_of = std::move(heads.second);
  PL_CO_TRY(std::vector<Comment> items, co_await Hydrate(ids, std::move(heads.first)));
  // The page's text budget (issue 41: 50 items with 20 replies each of 10,000 characters made
  // a 32 MB answer): items while their bodies fit, the first always; the rest are left to
  // nextCursor, and their replies are never fetched.
  size_t text = 0;
  size_t keep = 0;
  for (; keep < items.size(); ++keep) {
    const size_t bytes = items[keep].body.size();
    if (keep > 0 && text + bytes > kPageTextBudget) {
      break;
    }
    text += bytes;
  }
  const bool cut = keep < items.size();
  items.resize(keep);
  std::vector<int64_t> kept_ids;
  kept_ids.reserve(items.size());
  for (const Comment& c : items) {
    kept_ids.push_back(c.id);
  }
  std::vector<int64_t> reply_ids;
  for (size_t i = 0; i < ids.size() && i < reply_ids_of.size(); ++i) {
    if (std::find(kept_ids.begin(), kept_ids.end(), ids[i]) == kept_ids.end()) {
      continue;
    }
    reply_ids.insert(reply_ids.end(), reply_ids_of[i].begin(), reply_ids_of[i].end());
  }
  ids = std::move(kept_ids);
  // Round trip 3: the replies and every like state, together.
  std::vector<model::Target> targets;
  targets.reserve(ids.size() + reply_ids.size());
  for (int64_t id : ids) {
    targets.push_back(model::Target::Comment(id));
  }
  for (int64_t id : reply_ids) {
    targets.push_back(model::Target::Comment(id));
  }
  auto reply_op = cache_.GetMany(reply_ids);
  auto likes_op = likes_.GetMany(viewer ? viewer->id : 0, std::move(targets));
  auto both = co_await (std::move(reply_op) && std::move(likes_op));
  auto& reply_heads = std::get<0>(both);
  auto& states = std::get<1>(both);
  if (!reply_heads) {
    co_return tl::unexpected(reply_heads.error());
  }
  if (!states) {
    co_return tl::unexpected(states.error());
  }
  // By id, in one sorted vector (a page's ~80 ids; a std::map's node per id showed in its
  // profile). An id asked for twice (never, but the order of `ids` is Redis's) takes its
  // last state, as the map did.
  std::vector<std::pair<int64_t, LikeState>> like_of;
  like_of.reserve(ids.size() + reply_ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    like_of.emplace_back(ids[i], (*states)[i]);
  }
  for (size_t i = 0; i < reply_ids.size(); ++i) {
    like_of.emplace_back(reply_ids[i], (*states)[ids.size() + i]);
  }
  std::stable_sort(like_of.begin(), like_of.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  auto set_like = [&like_of](Comment& c) {
    auto it = std::upper_bound(like_of.begin(), like_of.end(), c.id,
                               [](int64_t id, const auto& e) { return id < e.first; });
    const LikeState s =
        it != like_of.begin() && std::prev(it)->first == c.id ? std::prev(it)->second : LikeState{};
    c.like_count = s.count;
    c.liked = s.liked;
  };

  PL_CO_TRY(std::vector<Comment> reply_items, co_await Hydrate(reply_ids, std::move(*reply_heads)));
  std::map<int64_t, std::vector<Comment>> replies_of;
  for (auto& r : reply_items) {
    set_like(r);
    if (r.parent_id) {
      replies_of[*r.parent_id].push_back(std::move(r));
    }
  }
  PageResult<Comment> out;
  out.total = (*page)->total;
  out.items.reserve(items.size());
  // Inline replies share what is left of the budget, in page order; those left out are still
  // counted in replyCount and come from the replies route.
  bool replies_full = false;
  for (auto& c : items) {
    set_like(c);
    if (auto it = replies_of.find(c.id); it != replies_of.end()) {
      for (Comment& r : it->second) {
        if (replies_full || text + r.body.size() > kPageTextBudget) {
          replies_full = true;
          break;
        }
        text += r.body.size();
        c.replies.push_back(std::move(r));
      }
    }
    out.items.push_back(std::move(c));
  }
  if (cut && !out.items.empty()) {
    // Continue right after the last item kept (its place in the index it was paged from).
    const int64_t last_id = out.items.back().id;
    auto e = std::find_if(entries.begin(), entries.end(),
                          [last_id](const auto& x) { return x.id == last_id; });
    if (e != entries.end()) {
      out.next_cursor = EncodeScoreCursor(SortTag(sort), e->score, e->id);
    }
    co_return out;
  }
  if (more && !entries.empty()) {
    const auto& last = entries.back();
    out.next_cursor = EncodeScoreCursor(SortTag(sort), last.score, last.id);
  }
  co_return out;
}

Awaitable<Result<PageResult<Comment>>> CommentService::List(const std::optional<Principal>& viewer,
                                                            int64_t article_id, CommentSort sort,
                                                            PageRequest page, int64_t replies) {
  PL_CO_TRY(const auto after, ParseCursor(sort, page));
  if (!articles_.Checked()) {
    PL_CO_CHECK(co_await articles_.EnsureChecked());
  }
  // The article check and the index page leave together: one round trip.
  auto article_op = articles_.Get(viewer, article_id, false, false);
  auto page_op = FetchPage(article_id, std::nullopt, sort, page, after);
  auto both = co_await (std::move(article_op) && std::move(page_op));
  auto& article = std::get<0>(both);
  if (!article) {
    co_return tl::unexpected(article.error());
  }
  co_return co_await PageOf(viewer, article_id, std::nullopt, sort, std::move(page), replies,
                            std::move(std::get<1>(both)));
}

Awaitable<Result<PageResult<Comment>>> CommentService::PublicPage(int64_t article_id,
                                                                  CommentSort sort,
                                                                  PageRequest page,
                                                                  int64_t replies) {
  PL_CO_TRY(const auto after, ParseCursor(sort, page));
  auto first = co_await FetchPage(article_id, std::nullopt, sort, page, after);
  co_return co_await PageOf(std::nullopt, article_id, std::nullopt, sort, std::move(page), replies,
                            std::move(first));
}

Awaitable<Result<CommentService::RepliesVersionRead>> CommentService::RepliesVersion(
    const std::optional<Principal>& viewer, int64_t comment_id) {
  PL_CO_TRY(const Comment c, co_await Peek(comment_id));
  // A held comment's replies page is its writer's and moderators' (empty until it is
  // approved: its replies are in no index while it hides them).
  const bool privileged = (Moderates(viewer) || Wrote(viewer, c)) && !c.deleted;
  if (!c.Listed() && !privileged) {
    co_return Fail(ErrorCode::kNotFound, "no such comment");
  }
  auto version = co_await PageVersion(viewer, c.article_id);
  if (!version) {
    if (version.error().code == ErrorCode::kNotFound) {
      co_return Fail(ErrorCode::kNotFound, "no such comment");  // as Replies says it
    }
    co_return tl::unexpected(version.error());
  }
  co_return RepliesVersionRead{c.article_id, std::move(*version)};
}

Awaitable<Result<PageResult<Comment>>> CommentService::PublicReplies(int64_t article_id,
                                                                     int64_t comment_id,
                                                                     CommentSort sort,
                                                                     PageRequest page) {
  PL_CO_TRY(const auto after, ParseCursor(sort, page));
  auto first = co_await FetchPage(article_id, comment_id, sort, page, after);
  co_return co_await PageOf(std::nullopt, article_id, comment_id, sort, std::move(page), 0,
                            std::move(first));
}

Awaitable<Result<PageResult<Comment>>> CommentService::Replies(
    const std::optional<Principal>& viewer, int64_t comment_id, CommentSort sort,
    PageRequest page) {
  PL_CO_TRY(const auto after, ParseCursor(sort, page));
  PL_CO_TRY(const Comment c, co_await Visible(viewer, comment_id));
  // A reply has no replies of its own (they sit under its top-level comment): an empty page.
  auto first = co_await FetchPage(c.article_id, c.id, sort, page, after);
  co_return co_await PageOf(viewer, c.article_id, c.id, sort, std::move(page), 0, std::move(first));
}

}  // namespace plaudit::domain
