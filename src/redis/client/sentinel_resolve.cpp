// SentinelClient: the primary Sentinel names, checked with ROLE, and followed through
// failovers (the design is in sentinel_client.hpp; sentinel_detail.hpp lists the other parts).
//
// One coroutine (WatchLoop) owns every change of primary: it asks the Sentinels when something
// wants it (start, +switch-master, a lost or demoted primary) and once a second in any case,
// so that a switch announced while no subscription was up is still seen. Calls never wait for
// it: they go to the primary when it is usable and fail with kUnavailable otherwise.
#include <spdlog/spdlog.h>

#include "redis/client/client_impl.hpp"
#include "redis/client/sentinel_client.hpp"
#include "redis/client/sentinel_detail.hpp"

namespace plaudit::redis {

using detail::Name;
using detail::Port;

namespace {

constexpr std::chrono::milliseconds kRecheckPeriod{1000};
// How long an unconnected Sentinel is waited for before the next one is asked.
constexpr std::chrono::milliseconds kSentinelWait{300};

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

}  // namespace

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

}  // namespace plaudit::redis
