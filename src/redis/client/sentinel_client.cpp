// SentinelClient's state (the design is in sentinel_client.hpp; sentinel_detail.hpp lists the
// other parts): its connections started and stopped, whether the primary is usable now, the
// doubt that sends it back to the Sentinels, and what spans every primary it has had (stats,
// the latency observer).
#include "redis/client/sentinel_client.hpp"

#include <spdlog/spdlog.h>

#include "redis/client/client_impl.hpp"
#include "redis/client/sentinel_detail.hpp"
#include "redis/client/wait_connected.hpp"

namespace plaudit::redis {

using detail::Name;
using detail::Port;

namespace {

constexpr std::string_view kSwitchChannel = "+switch-master";

}  // namespace

std::shared_ptr<SentinelClient> SentinelClient::Make(net::any_io_executor ex,
                                                     ClientOptions options) {
  auto client = std::make_shared<SentinelClient>(std::move(ex), std::move(options));
  client->weak_self_ = client;
  return client;
}

SentinelClient::SentinelClient(net::any_io_executor ex, ClientOptions options)
    : ex_(std::move(ex)), options_(std::move(options)), wake_(ex_) {}

SentinelClient::~SentinelClient() { Stop(); }

void SentinelClient::Start() {
  if (started_ || stopped_) {
    return;
  }
  started_ = true;
  for (const auto& node : options_.endpoint.nodes) {
    ClientOptions o = options_;
    o.endpoint = RedisEndpoint::Tcp(node.host, node.port);
    auto sentinel = detail::ClientImpl::Make(ex_, std::move(o));
    sentinel->Start();
    sentinels_.push_back(std::move(sentinel));
  }
  std::function<RedisEndpoint()> where = [weak = weak_self_] {
    auto self = weak.lock();
    return self ? self->NextSentinel() : RedisEndpoint::Unix("");
  };
  SubscriberHandlers handlers;
  handlers.on_message = [weak = weak_self_](std::string_view payload) {
    if (auto self = weak.lock()) {
      self->OnSwitchMaster(payload);
    }
  };
  // A switch announced while unsubscribed was missed: ask again on each (re)subscription.
  handlers.on_state = [weak = weak_self_](bool up) {
    if (auto self = weak.lock(); self && up) {
      self->WantResolve();
    }
  };
  switches_sub_ = Subscriber::Create(ex_, std::move(where), std::string(kSwitchChannel), false,
                                     std::move(handlers));
  switches_sub_->Start();
  net::co_spawn(ex_, WatchLoop(weak_self_), net::detached);
}

void SentinelClient::Stop() {
  if (stopped_) {
    return;
  }
  stopped_ = true;
  wake_.cancel();
  if (switches_sub_) {
    switches_sub_->Stop();
  }
  for (auto& s : sentinels_) {
    s->Stop();
  }
  if (primary_) {
    primary_->Stop();
  }
}

bool SentinelClient::connected() const {
  return !stopped_ && primary_ && !doubted_ && primary_->connected() &&
         primary_->stats().reconnects == verified_at_;
}

Awaitable<bool> SentinelClient::WaitConnected(std::chrono::milliseconds timeout) {
  return detail::WaitConnectedOf(weak_self_, timeout, [](const SentinelClient& c) {
    if (c.stopped_) {
      return detail::Readiness::kStopped;
    }
    return c.connected() ? detail::Readiness::kConnected : detail::Readiness::kWaiting;
  });
}

std::shared_ptr<Client> SentinelClient::Usable() {
  if (connected()) {
    return primary_;
  }
  WantResolve();
  return nullptr;
}

void SentinelClient::Doubt(std::string_view why) {
  if (!doubted_ && primary_) {
    spdlog::warn("redis: primary {} of {} in doubt ({}): asking the Sentinels", Name(primary_addr_),
                 options_.endpoint.service, why);
  }
  doubted_ = true;
  WantResolve();
}

void SentinelClient::WantResolve() {
  if (resolve_wanted_ || stopped_) {
    return;
  }
  resolve_wanted_ = true;
  if (!backing_off_) {
    wake_.cancel();  // ends WatchLoop's wait; else it sees the flag next
  }
}

void SentinelClient::Retire(std::shared_ptr<Client>& client) {
  retired_ += client->stats();
  client->Stop();
  client.reset();
}

// "+switch-master <service> <old ip> <old port> <new ip> <new port>", from every Sentinel
// that saw the failover end; other services' are not ours.
void SentinelClient::OnSwitchMaster(std::string_view payload) {
  std::vector<std::string_view> words;
  while (!payload.empty()) {
    const size_t space = payload.find(' ');
    words.push_back(payload.substr(0, space));
    payload = space == std::string_view::npos ? std::string_view() : payload.substr(space + 1);
  }
  if (words.size() != 5 || words[0] != options_.endpoint.service) {
    return;
  }
  auto port = Port(words[4]);
  if (port && have_addr_ && primary_addr_ == RedisEndpoint::Node{std::string(words[3]), *port} &&
      connected()) {
    return;  // already there (another Sentinel's announcement, or the poll was first)
  }
  Doubt("+switch-master");
}

RedisEndpoint SentinelClient::NextSentinel() {
  const auto& nodes = options_.endpoint.nodes;
  if (nodes.empty()) {
    return RedisEndpoint::Unix("");
  }
  const auto& n = nodes[subscriber_turn_++ % nodes.size()];
  return RedisEndpoint::Tcp(n.host, n.port);
}

std::vector<std::shared_ptr<Client>> SentinelClient::Primaries() {
  if (!primary_) {
    return {};
  }
  return {primary_};
}

RedisEndpoint SentinelClient::PubSubEndpoint(std::string_view) const {
  if (!have_addr_) {
    return RedisEndpoint::Unix("");
  }
  return RedisEndpoint::Tcp(primary_addr_.host, primary_addr_.port);
}

const ClientStats& SentinelClient::stats() const {
  stats_ = retired_;
  if (primary_) {
    stats_ += primary_->stats();
  }
  stats_.reconnects += switches_;
  return stats_;
}

void SentinelClient::SetLatencyObserver(std::function<void(std::string_view, double)> observer) {
  observer_ = std::move(observer);
  if (primary_) {
    primary_->SetLatencyObserver(observer_);
  }
}

std::optional<RedisEndpoint::Node> SentinelClient::primary() const {
  if (!primary_) {
    return std::nullopt;
  }
  return primary_addr_;
}

}  // namespace plaudit::redis
