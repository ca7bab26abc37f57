// CommentService's reads of single comments: one comment (Peek, Visible, Get, GetLike) and
// whether comments may be seen (VisibleMany), with the rules that hide a comment from a viewer.
#include <map>

#include "domain/comment_pages_detail.hpp"
#include "domain/comments.hpp"

namespace plaudit::domain {

using detail::Moderates;
using detail::Wrote;

namespace {

// A live pending top-level comment keeps its replies from readers.
bool HidesReplies(const Comment& top) {
  return !top.deleted && top.status == CommentStatus::kPending;
}

}  // namespace

Awaitable<Result<Comment>> CommentService::Peek(int64_t id) {
  if (!articles_.Checked()) {
    PL_CO_CHECK(co_await articles_.EnsureChecked());
  }
  PL_CO_TRY(std::optional<Comment> found, co_await repo_.Find(id));
  if (!found) {
    co_return Fail(ErrorCode::kNotFound, "no such comment");
  }
  co_return std::move(*found);
}

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
    c.ClearText();
    c.deleted = true;
  }
  if (c.deleted) {
    // Whatever a row or hash still holds (one an older release deleted kept its html): a
    // deleted comment has no text for anyone.
    c.ClearText();
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
  // known to name nothing (UnknownIds); then the top-level comments of replies, whose
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
    PL_CO_TRY(const store::UnknownIds::Look look, co_await unknown_.Sort(missed_ids));
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
      // Cached as Peek caches one, so the next look finds their placements.
      std::vector<std::optional<Comment>> none(asked.size());
      PL_CO_TRY(std::vector<std::optional<Comment>> rows,
                co_await repo_.FillMisses(asked, std::move(none)));
      for (size_t k = 0; k < asked.size(); ++k) {
        const size_t j = asked_at[k];
        if (rows[k]) {
          found[missed[j]] = std::move(rows[k]);
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
        PL_CO_TRY(auto peeked, co_await Peek(top_ids[k]));
        top = std::move(peeked);
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

}  // namespace plaudit::domain
