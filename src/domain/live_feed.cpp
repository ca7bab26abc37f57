#include "domain/live_feed.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <span>
#include <string>

namespace plaudit::domain {
namespace {

constexpr std::array<std::string_view, 4> kNames{"comment", "updated", "deleted", "likes"};

// What readers see of it: a comment they read, apart from a placeholder (listed for its
// replies, its own text gone), which reads to them as gone.
bool Shown(const model::Comment& c) { return c.Listed() && !c.Placeholder(); }

}  // namespace

std::string_view LiveKindName(LiveKind kind) { return kNames.at(static_cast<size_t>(kind)); }

std::optional<LiveKind> ParseLiveKind(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) {
      return static_cast<LiveKind>(i);
    }
  }
  return std::nullopt;
}

std::optional<LiveKind> LiveKindOf(const std::optional<model::Comment>& before,
                                   const model::Comment& after) {
  if (!before) {
    // New: readers hear of it only if they see it (a held one announces nothing).
    return Shown(after) ? std::optional<LiveKind>(LiveKind::kShown) : std::nullopt;
  }
  if (Shown(after)) {
    return Shown(*before) ? LiveKind::kUpdated : LiveKind::kShown;
  }
  // Not shown now: a placeholder still listed is an update (it carries no text).
  if (after.Listed()) {
    return LiveKind::kUpdated;
  }
  // Gone for readers, if they may ever have seen it. `before` is the row just before this
  // write when the write made the next version of it: then a comment it shows held was never
  // shown, and its going is nobody's business (not even its id). Otherwise another write came
  // between (two moderators acting at once may both have read "pending", and the first may
  // have shown it): gone, to be safe.
  const bool exact = after.ver == before->ver + 1;
  if (exact && !Shown(*before) && !before->Listed()) {
    return std::nullopt;
  }
  return LiveKind::kGone;
}

void LiveFeed::Publish(int64_t article_id, LiveKind kind, int64_t comment_id) {
  net::co_spawn(ex_, PublishNow(article_id, kind, comment_id), net::detached);
}

Awaitable<void> LiveFeed::PublishNow(int64_t article_id, LiveKind kind, int64_t comment_id) {
  const std::shared_ptr<bool> alive = alive_;
  const std::array<int64_t, 1> ids{comment_id};
  ++in_flight_;
  auto seq = co_await channel_.Publish(article_id, LiveKindName(kind), ids);
  if (!*alive) {
    co_return;
  }
  --in_flight_;
  if (!seq) {
    ++publish_failures_;
    spdlog::warn("live update of comment {} (article {}) not published: {}", comment_id, article_id,
                 seq.error().message);
  }
}

void LiveFeed::Liked(int64_t article_id, int64_t comment_id) {
  PendingLikes& p = likes_[article_id];
  auto at = std::lower_bound(p.targets.begin(), p.targets.end(), comment_id);
  if ((at == p.targets.end() || *at != comment_id) && p.targets.size() < kMaxPendingLikes) {
    p.targets.insert(at, comment_id);
  }
  if (!p.running) {
    p.running = true;
    net::co_spawn(ex_, PublishLikes(article_id), net::detached);
  }
}

Awaitable<void> LiveFeed::PublishLikes(int64_t article_id) {
  const std::shared_ptr<bool> alive = alive_;
  net::steady_timer gate(ex_);
  while (*alive) {
    auto it = likes_.find(article_id);
    if (it == likes_.end()) {
      co_return;
    }
    if (it->second.targets.empty()) {
      likes_.erase(it);  // all told, and the gap since is over: the next like starts again
      co_return;
    }
    // A message names at most kMaxIds; the rest wait for the next opening.
    std::vector<int64_t>& targets = it->second.targets;
    const size_t n = std::min(targets.size(), redis::LiveChannel::kMaxIds);
    std::vector<int64_t> batch(targets.begin(), targets.begin() + static_cast<ptrdiff_t>(n));
    targets.erase(targets.begin(), targets.begin() + static_cast<ptrdiff_t>(n));
    ++in_flight_;
    auto sent = co_await channel_.PublishGated(article_id, LiveKindName(LiveKind::kLikes),
                                               std::span<const int64_t>(batch), kLikesGap);
    if (!*alive) {
      co_return;
    }
    --in_flight_;
    it = likes_.find(article_id);  // the map may have changed meanwhile
    if (it == likes_.end()) {
      co_return;
    }
    std::chrono::milliseconds wait{0};
    if (!sent) {
      // Kept and tried again, a little later each time (Redis away, a slot moving); given up
      // after kMaxLikeAttempts, when readers' counts wait for the next like or a reload.
      ++publish_failures_;
      if (++it->second.failures >= kMaxLikeAttempts) {
        spdlog::warn("live like counts of article {} not published: {}", article_id,
                     sent.error().message);
        likes_.erase(it);
        co_return;
      }
      wait = kLikesGap * (int64_t{1} << it->second.failures);
    } else {
      it->second.failures = 0;
      wait = sent->wait;
    }
    if (sent && sent->seq != 0) {
      // Told. The gate is ours for kLikesGap: likes meanwhile wait here for it to open (the
      // loop's top ends this coroutine if none came), rather than each costing a publish
      // refused at the gate.
      wait = kLikesGap;
    }
    if (!sent || sent->seq == 0) {
      // Not told: kept until the gate opens (held by this instance or another).
      std::vector<int64_t>& now = it->second.targets;
      std::vector<int64_t> merged;
      merged.reserve(batch.size() + now.size());
      std::set_union(batch.begin(), batch.end(), now.begin(), now.end(),
                     std::back_inserter(merged));
      if (merged.size() > kMaxPendingLikes) {
        merged.resize(kMaxPendingLikes);  // the highest comment ids wait for their next like
      }
      now = std::move(merged);
    }
    gate.expires_after(wait);
    boost::system::error_code ec;
    co_await gate.async_wait(net::redirect_error(net::use_awaitable, ec));
  }
}

void LiveFeed::Received(std::string_view payload) {
  const std::optional<redis::LiveMessage> m = redis::LiveChannel::Decode(payload);
  if (!m) {
    return;
  }
  const std::optional<LiveKind> kind = ParseLiveKind(m->kind);
  if (!kind || !on_event_) {
    return;
  }
  LiveEvent e{m->article_id, m->seq, *kind, 0, {}};
  if (*kind == LiveKind::kLikes) {
    e.liked = m->ids;
  } else if (m->ids.size() == 1 && m->ids.front() > 0) {
    e.comment_id = m->ids.front();
  } else {
    return;  // not a message this release sends
  }
  on_event_(e);
}

void LiveFeed::SubscriptionChanged(bool subscribed) {
  if (on_state_) {
    on_state_(subscribed);
  }
}

}  // namespace plaudit::domain
