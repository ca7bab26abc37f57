// ClusterClient's view of the cluster: the connections to its nodes, the slot map and how it
// is kept current (cluster_client.hpp has the design; cluster_client.cpp routes by it).
//
// The map is read with CLUSTER SLOTS from the first node that answers (the primaries known,
// then the seeds), once a second, and 100 ms after anything says it moved: a MOVED, a node
// whose connection failed, a slot no node serves. A primary that left the map is closed, its
// counters kept (stats() sums never go back).
#include <spdlog/spdlog.h>

#include <algorithm>

#include "redis/client/client_impl.hpp"
#include "redis/client/cluster_client.hpp"
#include "redis/client/wait_connected.hpp"

namespace plaudit::redis {

namespace {

constexpr std::chrono::milliseconds kMinRefreshGap{100};
constexpr std::chrono::milliseconds kRefreshPeriod{1000};

}  // namespace

std::shared_ptr<ClusterClient> ClusterClient::Make(net::any_io_executor ex, ClientOptions options) {
  auto client = std::make_shared<ClusterClient>(std::move(ex), std::move(options));
  client->weak_self_ = client;
  return client;
}

ClusterClient::ClusterClient(net::any_io_executor ex, ClientOptions options)
    : ex_(std::move(ex)), options_(std::move(options)), owner_{}, wake_(ex_) {
  owner_.fill(-1);
}

ClusterClient::~ClusterClient() { Stop(); }

void ClusterClient::Start() {
  if (started_ || stopped_) {
    return;
  }
  started_ = true;
  for (const auto& seed : options_.endpoint.nodes) {
    NodeAt(seed);
  }
  net::co_spawn(ex_, RefreshLoop(weak_self_), net::detached);
}

void ClusterClient::Stop() {
  if (stopped_) {
    return;
  }
  stopped_ = true;
  wake_.cancel();
  for (auto& node : nodes_) {
    node->client->Stop();
  }
}

bool ClusterClient::connected() const {
  if (!have_map_ || stopped_) {
    return false;
  }
  return std::all_of(primaries_.begin(), primaries_.end(),
                     [](const auto& p) { return p->client->connected(); });
}

Awaitable<bool> ClusterClient::WaitConnected(std::chrono::milliseconds timeout) {
  return detail::WaitConnectedOf(weak_self_, timeout, [](const ClusterClient& c) {
    if (c.stopped_) {
      return detail::Readiness::kStopped;
    }
    return c.connected() ? detail::Readiness::kConnected : detail::Readiness::kWaiting;
  });
}

std::shared_ptr<ClusterClient::Node> ClusterClient::Route(int slot) const {
  if (slot >= 0) {
    const int owner = owner_[static_cast<size_t>(slot)];
    return owner < 0 ? nullptr : primaries_[static_cast<size_t>(owner)];
  }
  // No key: any node, a connected primary first.
  for (const auto& p : primaries_) {
    if (p->client->connected()) {
      return p;
    }
  }
  for (const auto& n : nodes_) {
    if (n->client->connected()) {
      return n;
    }
  }
  if (!primaries_.empty()) {
    return primaries_.front();
  }
  return nodes_.empty() ? nullptr : nodes_.front();
}

std::shared_ptr<ClusterClient::Node> ClusterClient::NodeAt(const RedisEndpoint::Node& addr) {
  for (const auto& n : nodes_) {
    if (n->addr == addr) {
      return n;
    }
  }
  ClientOptions o = options_;
  o.endpoint = RedisEndpoint::Tcp(addr.host, addr.port);
  auto node = std::make_shared<Node>(Node{addr, detail::ClientImpl::Make(ex_, std::move(o))});
  if (observer_) {
    node->client->SetLatencyObserver(observer_);
  }
  if (!stopped_) {
    node->client->Start();
  }
  nodes_.push_back(node);
  return node;
}

void ClusterClient::NoteMoved(int slot, const RedisEndpoint::Node& addr) {
  auto node = NodeAt(addr);
  auto it = std::find(primaries_.begin(), primaries_.end(), node);
  if (it == primaries_.end()) {
    primaries_.push_back(node);
    it = primaries_.end() - 1;
  }
  const auto index = static_cast<int16_t>(it - primaries_.begin());
  if (owner_[static_cast<size_t>(slot)] != index) {
    owner_[static_cast<size_t>(slot)] = index;
    ++topology_changes_;
  }
  WantRefresh();
}

void ClusterClient::ApplyMap(const cluster::SlotMap& map) {
  std::vector<std::shared_ptr<Node>> primaries;
  primaries.reserve(map.primaries.size());
  for (const auto& addr : map.primaries) {
    primaries.push_back(NodeAt(addr));
  }
  std::array<int16_t, cluster::kSlots> owner{};
  bool moved = false;
  for (size_t s = 0; s < cluster::kSlots; ++s) {
    owner[s] = map.owner[s];
    const auto before = owner_[s] < 0 ? nullptr : primaries_[static_cast<size_t>(owner_[s])];
    const auto after = owner[s] < 0 ? nullptr : primaries[static_cast<size_t>(owner[s])];
    if (before != after) {
      moved = true;
    }
  }
  if (have_map_ && moved) {
    ++topology_changes_;
    spdlog::info("redis: cluster slots changed hands ({} primaries)", primaries.size());
  } else if (!have_map_) {
    spdlog::info("redis: connected to a cluster of {} primaries", primaries.size());
  }
  primaries_ = std::move(primaries);
  owner_ = owner;
  have_map_ = true;
  // A node that serves nothing now (a failed primary, one whose slots all moved) is closed;
  // seeds stay, as the way back in when every primary is gone.
  std::vector<std::shared_ptr<Node>> gone;
  for (const auto& n : nodes_) {
    const bool primary = std::find(primaries_.begin(), primaries_.end(), n) != primaries_.end();
    const auto& seeds = options_.endpoint.nodes;
    const bool seed = std::find(seeds.begin(), seeds.end(), n->addr) != seeds.end();
    if (!primary && !seed) {
      gone.push_back(n);
    }
  }
  for (const auto& n : gone) {
    Retire(n);
  }
}

void ClusterClient::Retire(const std::shared_ptr<Node>& node) {
  retired_ += node->client->stats();
  node->client->Stop();
  nodes_.erase(std::remove(nodes_.begin(), nodes_.end(), node), nodes_.end());
}

void ClusterClient::WantRefresh() {
  if (refresh_wanted_ || stopped_) {
    return;
  }
  refresh_wanted_ = true;
  const auto due = last_refresh_ + kMinRefreshGap;
  if (due < wake_.expiry()) {
    wake_.expires_at(due);  // wakes the refresher (it waits longer)
  }
}

Awaitable<Status> ClusterClient::Refresh() { return RefreshOnce(weak_self_); }

Awaitable<void> ClusterClient::RefreshLoop(std::weak_ptr<ClusterClient> weak) {
  while (true) {
    Clock::time_point due;
    {
      auto self = weak.lock();
      if (!self || self->stopped_) {
        co_return;
      }
      const bool soon = self->refresh_wanted_ || !self->have_map_;
      due = self->last_refresh_ + (soon ? kMinRefreshGap : kRefreshPeriod);
      if (Clock::now() < due) {
        self->wake_.expires_at(due);
      } else {
        self->refresh_wanted_ = false;
        self->last_refresh_ = Clock::now();
      }
    }
    if (Clock::now() < due) {
      // The timer is the client's: destroying it ends this wait (aborted), then the lock fails.
      std::shared_ptr<ClusterClient> self = weak.lock();
      if (!self) {
        co_return;
      }
      auto wait = self->wake_.async_wait(net::as_tuple(net::use_awaitable));
      self.reset();
      co_await std::move(wait);
      continue;
    }
    auto st = co_await RefreshOnce(weak);
    if (!st) {
      spdlog::debug("redis: cluster map not read: {}", st.error().message);
    }
  }
}

Awaitable<Status> ClusterClient::RefreshOnce(std::weak_ptr<ClusterClient> weak) {
  std::vector<std::shared_ptr<Node>> candidates;
  std::chrono::milliseconds connect_timeout{1000};
  {
    auto self = weak.lock();
    if (!self) {
      co_return Fail(ErrorCode::kUnavailable, "redis client destroyed");
    }
    connect_timeout = self->options_.connect_timeout;
    candidates = self->primaries_;
    for (const auto& n : self->nodes_) {
      if (std::find(candidates.begin(), candidates.end(), n) == candidates.end()) {
        candidates.push_back(n);
      }
    }
  }
  // Connected nodes first; then the others, given time to connect.
  std::stable_partition(candidates.begin(), candidates.end(),
                        [](const auto& n) { return n->client->connected(); });
  std::string last_error = "no node";
  for (const auto& node : candidates) {
    if (!node->client->connected()) {
      auto up = co_await node->client->WaitConnected(connect_timeout);
      if (!up) {
        continue;
      }
    }
    std::vector<std::string> slots{"CLUSTER", "SLOTS"};
    auto r = co_await node->client->Command(std::move(slots));
    if (!r) {
      last_error = r.error().message;
      continue;
    }
    auto map = cluster::ParseClusterSlots(*r, node->addr.host);
    if (!map || map->primaries.empty()) {
      last_error = map ? "no slots assigned" : map.error().message;
      continue;
    }
    auto self = weak.lock();
    if (!self) {
      co_return Fail(ErrorCode::kUnavailable, "redis client destroyed");
    }
    self->ApplyMap(*map);
    co_return Status{};
  }
  co_return Fail(ErrorCode::kUnavailable, "no cluster node answers CLUSTER SLOTS: " + last_error);
}

std::vector<std::shared_ptr<Client>> ClusterClient::Primaries() {
  std::vector<std::shared_ptr<Client>> out;
  out.reserve(primaries_.size());
  for (const auto& p : primaries_) {
    out.push_back(p->client);
  }
  return out;
}

RedisEndpoint ClusterClient::PubSubEndpoint(std::string_view channel) const {
  if (auto node = Route(cluster::KeySlot(channel))) {
    return RedisEndpoint::Tcp(node->addr.host, node->addr.port);
  }
  const auto& seeds = options_.endpoint.nodes;
  if (seeds.empty()) {
    return options_.endpoint;
  }
  const auto& addr = seeds[pubsub_turn_++ % seeds.size()];
  return RedisEndpoint::Tcp(addr.host, addr.port);
}

const ClientStats& ClusterClient::stats() const {
  stats_ = retired_;
  for (const auto& n : nodes_) {
    stats_ += n->client->stats();
  }
  stats_.reconnects += topology_changes_;
  return stats_;
}

void ClusterClient::SetLatencyObserver(std::function<void(std::string_view, double)> observer) {
  observer_ = std::move(observer);
  for (const auto& n : nodes_) {
    n->client->SetLatencyObserver(observer_);
  }
}

}  // namespace plaudit::redis
