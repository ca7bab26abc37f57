// SentinelClient: the primary Sentinel names, checked with ROLE, and followed through
// failovers (the design is in sentinel_client.hpp).
//
// One coroutine (WatchLoop) owns every change of primary: it asks the Sentinels when something
// wants it (start, +switch-master, a lost or demoted primary) and once a second in any case,
// so that a switch announced while no subscription was up is still seen. Calls never wait for
// it: they go to the primary when it is usable and fail with kUnavailable otherwise.
#include "redis/client/sentinel_client.hpp"

#include <spdlog/spdlog.h>

#include <charconv>

#include "redis/client/client_impl.hpp"
#include "redis/client/wait_connected.hpp"

namespace plaudit::redis {

namespace {

constexpr std::chrono::milliseconds kRecheckPeriod{1000};
// How long an unconnected Sentinel is waited for before the next one is asked.
constexpr std::chrono::milliseconds kSentinelWait{300};
constexpr std::string_view kSwitchChannel = "+switch-master";

std::string Name(const RedisEndpoint::Node& n) { return n.host + ":" + std::to_string(n.port); }

std::optional<int> Port(std::string_view s) {
  int port = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), port);
  if (ec != std::errc() || end != s.data() + s.size() || port <= 0 || port > 65535) {
    return std::nullopt;
  }
  return port;
}

// SENTINEL get-master-addr-by-name: [host, port], or nil for a service it does not monitor.
Result<RedisEndpoint::Node> ParseMasterAddr(const Reply& r) {
  if (r.type != Reply::Type::kArray || r.elements.size() != 2) {
    return Fail(ErrorCode::kNotFound, r.is_error() ? r.str : "the service is not monitored");
  }
  auto port = Port(r.elements[1].str);
  if (r.elements[0].str.empty() || !port) {
    return Fail(ErrorCode::kInternal, "a malformed primary address");
  }
  return RedisEndpoint::Node{r.elements[0].str, *port};
}

bool IsReadOnly(const Reply& r) { return r.is_error() && r.str.starts_with("READONLY"); }
bool IsReadOnly(const std::vector<Reply>& rs) {
  for (const auto& r : rs) {
    if (IsReadOnly(r)) {
      return true;
    }
  }
  return false;
}

template <class T>
Awaitable<T> Unavailable(std::string why) {
  co_return Fail(ErrorCode::kUnavailable, std::move(why));
}

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

Awaitable<void> SentinelClient::WatchLoop(std::weak_ptr<SentinelClient> weak) {
  std::chrono::milliseconds backoff{0};
  while (true) {
    bool resolve = false;
    {
      auto self = weak.lock();
      if (!self || self->stopped_) {
        co_return;
      }
      if (backoff.count() == 0) {
        backoff = self->options_.reconnect_min;
      }
      resolve = self->resolve_wanted_ || !self->connected();
      self->resolve_wanted_ = false;  // a want that comes while resolving makes another round
    }
    std::chrono::milliseconds wait = kRecheckPeriod;
    bool failed = false;
    if (resolve) {
      auto st = co_await ResolveOnce(weak);
      auto self = weak.lock();
      if (!self || self->stopped_) {
        co_return;
      }
      if (st) {
        backoff = self->options_.reconnect_min;
      } else {
        spdlog::debug("redis: no primary for {}: {}", self->options_.endpoint.service,
                      st.error().message);
        failed = true;
        wait = backoff;
        backoff = std::min(backoff * 2, self->options_.reconnect_max);
      }
    }
    {
      std::shared_ptr<SentinelClient> self = weak.lock();
      if (!self || self->stopped_) {
        co_return;
      }
      if (self->resolve_wanted_ && !failed) {
        continue;
      }
      // The timer is the client's: WantResolve cancels it (except during a backoff, which
      // every refused call would otherwise cut short); destroying it ends the wait too.
      self->backing_off_ = failed;
      self->wake_.expires_after(wait);
      auto sleep = self->wake_.async_wait(net::as_tuple(net::use_awaitable));
      self.reset();
      co_await std::move(sleep);
    }
    if (auto self = weak.lock()) {
      self->backing_off_ = false;
      self->resolve_wanted_ = true;  // woken for it, or the periodic check
    }
  }
}

Awaitable<Status> SentinelClient::ResolveOnce(std::weak_ptr<SentinelClient> weak) {
  std::vector<std::shared_ptr<Client>> sentinels;
  size_t first = 0;
  std::string service;
  ClientOptions options;
  {
    auto self = weak.lock();
    if (!self) {
      co_return Fail(ErrorCode::kUnavailable, "redis client destroyed");
    }
    sentinels = self->sentinels_;
    first = self->sentinel_turn_;
    service = self->options_.endpoint.service;
    options = self->options_;
  }
  // Connected Sentinels first, the one that answered last time first among them.
  std::optional<RedisEndpoint::Node> addr;
  std::string last_error = "no Sentinel";
  for (int pass = 0; pass < 2 && !addr; ++pass) {
    for (size_t k = 0; k < sentinels.size() && !addr; ++k) {
      const size_t i = (first + k) % sentinels.size();
      const auto& sentinel = sentinels[i];
      if (sentinel->connected() != (pass == 0)) {
        continue;
      }
      if (pass == 1) {
        auto up = co_await sentinel->WaitConnected(kSentinelWait);
        if (!up) {
          last_error = "Sentinel " + options.endpoint.nodes[i].host + ":" +
                       std::to_string(options.endpoint.nodes[i].port) + " is down";
          continue;
        }
      }
      std::vector<std::string> ask{"SENTINEL", "get-master-addr-by-name", service};
      auto r = co_await sentinel->Command(std::move(ask));
      if (!r) {
        last_error = r.error().message;
        continue;
      }
      auto named = ParseMasterAddr(*r);
      if (!named) {
        last_error = named.error().message;
        continue;
      }
      addr = *named;
      if (auto self = weak.lock()) {
        self->sentinel_turn_ = i;
      }
    }
  }
  if (!addr) {
    co_return Fail(ErrorCode::kUnavailable, "no Sentinel names a primary: " + last_error);
  }

  // The connection to it: the one in use when it is the same node, else a new one.
  std::shared_ptr<Client> conn;
  bool fresh = false;
  {
    auto self = weak.lock();
    if (!self || self->stopped_) {
      co_return Fail(ErrorCode::kUnavailable, "redis client stopped");
    }
    if (self->primary_ && self->primary_addr_ == *addr) {
      if (self->connected()) {
        co_return Status{};  // the periodic check: nothing changed
      }
      conn = self->primary_;
    } else {
      ClientOptions o = self->options_;
      o.endpoint = RedisEndpoint::Tcp(addr->host, addr->port, self->options_.endpoint.db);
      conn = detail::ClientImpl::Make(self->ex_, std::move(o));
      if (self->observer_) {
        conn->SetLatencyObserver(self->observer_);
      }
      conn->Start();
      fresh = true;
    }
  }
  // Closes `conn` when it is not to be used (its counters kept), and says why.
  auto refuse = [&weak, &conn, fresh](std::string why) -> Status {
    if (auto self = weak.lock()) {
      if (fresh) {
        self->Retire(conn);
      } else if (self->primary_ == conn) {
        self->Retire(self->primary_);
      }
    }
    return Fail(ErrorCode::kUnavailable, std::move(why));
  };
  if (!conn->connected()) {
    auto up = co_await conn->WaitConnected(options.connect_timeout);
    if (!up) {
      co_return refuse("cannot connect to " + Name(*addr));
    }
  }
  const uint64_t reconnects = conn->stats().reconnects;
  std::vector<std::string> role_cmd{"ROLE"};
  auto role = co_await conn->Command(std::move(role_cmd));
  if (!role) {
    co_return refuse("ROLE of " + Name(*addr) + ": " + role.error().message);
  }
  const bool master = role->type == Reply::Type::kArray && !role->elements.empty() &&
                      role->elements[0].str == "master";
  if (!master) {
    // Never write to a replica: the Sentinels have not caught up with a failover yet, or this
    // node was an old primary and came back as a replica.
    const std::string said = role->type == Reply::Type::kArray && !role->elements.empty()
                                 ? role->elements[0].str
                                 : role->str;
    // Once per node refused in a row; the retries (every reconnect_max at most) are debug noise.
    auto self = weak.lock();
    if (self && !(self->last_refused_ == addr)) {
      spdlog::warn("redis: Sentinel names {} as primary of {}, but it says ROLE {}: refused",
                   Name(*addr), service, said);
      self->last_refused_ = addr;
    } else {
      spdlog::debug("redis: {} still says ROLE {}", Name(*addr), said);
    }
    co_return refuse(Name(*addr) + " is not a primary (ROLE " + said + ")");
  }
  if (conn->stats().reconnects != reconnects) {
    co_return refuse(Name(*addr) + " reconnected while its ROLE was asked");
  }
  auto self = weak.lock();
  if (!self || self->stopped_) {
    conn->Stop();
    co_return Fail(ErrorCode::kUnavailable, "redis client stopped");
  }
  if (self->primary_ != conn) {
    if (self->primary_) {
      self->Retire(self->primary_);
    }
    if (self->have_addr_) {
      ++self->switches_;
    }
    spdlog::info("redis: primary of {} is {} (via Sentinel)", service, Name(*addr));
    self->primary_ = conn;
    self->primary_addr_ = *addr;
    self->have_addr_ = true;
  }
  self->verified_at_ = conn->stats().reconnects;
  self->doubted_ = false;
  self->last_refused_.reset();
  co_return Status{};
}

template <class T>
Awaitable<T> SentinelClient::Watched(std::weak_ptr<SentinelClient> weak, Awaitable<T> call) {
  T r = co_await std::move(call);
  if (r && IsReadOnly(*r)) {
    if (auto self = weak.lock()) {
      self->Doubt("READONLY");
    }
    co_return Fail(ErrorCode::kUnavailable, "redis: the primary became a replica");
  }
  if (!r) {
    if (auto self = weak.lock(); self && !self->connected()) {
      self->WantResolve();
    }
  }
  co_return r;
}

Awaitable<Result<Reply>> SentinelClient::Command(std::vector<std::string> argv) {
  auto primary = Usable();
  if (!primary) {
    return Unavailable<Result<Reply>>("redis unavailable: no primary (Sentinel)");
  }
  return Watched(weak_self_, primary->Command(std::move(argv)));
}

Awaitable<Result<std::vector<Reply>>> SentinelClient::Pipeline(
    std::vector<std::vector<std::string>> commands) {
  auto primary = Usable();
  if (!primary) {
    return Unavailable<Result<std::vector<Reply>>>("redis unavailable: no primary (Sentinel)");
  }
  return Watched(weak_self_, primary->Pipeline(std::move(commands)));
}

Awaitable<Result<std::vector<Reply>>> SentinelClient::PipelineFramed(FramedCommands commands) {
  auto primary = Usable();
  if (!primary) {
    return Unavailable<Result<std::vector<Reply>>>("redis unavailable: no primary (Sentinel)");
  }
  return Watched(weak_self_, primary->PipelineFramed(std::move(commands)));
}

Awaitable<Result<Reply>> SentinelClient::Eval(const Script& script, std::vector<std::string> keys,
                                              std::vector<std::string> args) {
  auto primary = Usable();
  if (!primary) {
    return Unavailable<Result<Reply>>("redis unavailable: no primary (Sentinel)");
  }
  return Watched(weak_self_, primary->Eval(script, std::move(keys), std::move(args)));
}

Awaitable<Result<int64_t>> SentinelClient::WaitReplicas(std::string_view key, int replicas,
                                                        std::chrono::milliseconds timeout) {
  auto primary = Usable();
  if (!primary) {
    return Unavailable<Result<int64_t>>("redis unavailable: no primary (Sentinel)");
  }
  return primary->WaitReplicas(key, replicas, timeout);
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
