// Building one page of comments or replies from the Redis indexes (cursor, index page), then
// hydrating it (cache, then SQL) with its inline replies, like states and the text budget.
#include <algorithm>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <map>

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

Awaitable<Result<std::vector<Comment>>> CommentService::Hydrate(
    const std::vector<int64_t>& ids, std::vector<redis::CachedComment> cached) {
  PL_CO_TRY(cached, co_await repo_.FillMisses(ids, std::move(cached)));
  std::vector<Comment> out;
  out.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    std::optional<Comment>& c = cached[i];
    if (!c || !c->Listed()) {  // gone meanwhile, or not listed
      continue;
    }
    if (!c->deleted && !c->Approved()) {
      // A spam top-level comment listed for its replies: its text is nobody's to read here.
      c->ClearText();
      c->deleted = true;
    }
    // A placeholder reads as any deleted comment: not whether it was spam or held. Its text
    // goes whatever the row or hash still holds (one an older release deleted kept its html).
    if (c->deleted) {
      c->status = CommentStatus::kApproved;
      c->ClearText();
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
    PL_CO_CHECK(page);
    if (*page) {
      break;
    }
    // The article's comment cache is missing: rebuild it from SQL, then read again.
    PL_CO_CHECK(co_await repo_.EnsureLoaded(article_id));
    page = co_await FetchPage(article_id, parent, sort, req, after);
  }
  PL_CO_CHECK(page);
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
  // a 32 MB answer): items while their texts (body and html) fit, the first always; the rest are
  // left to nextCursor, and their replies are never fetched.
  size_t text = 0;
  size_t keep = 0;
  for (; keep < items.size(); ++keep) {
    const size_t bytes = items[keep].TextBytes();
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
  PL_CO_CHECK(reply_heads);
  PL_CO_CHECK(states);
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
        if (replies_full || text + r.TextBytes() > kPageTextBudget) {
          replies_full = true;
          break;
        }
        text += r.TextBytes();
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

}  // namespace plaudit::domain
