#include "app/app.hpp"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>

#include "api/ops.hpp"
#include "api/routes.hpp"
#include "api/web_files.hpp"
#include "app/private_files.hpp"
#include "common/fd_limit.hpp"
#include "domain/user.hpp"

namespace plaudit::app {

Result<std::unique_ptr<sql::Store>> OpenStore(const config::Config& config) {
  sql::StoreOptions opts;
  if (config.database) {
    opts.url = *config.database;
  } else {
    // 0700 whatever the umask: plaudit.db holds password hashes (issue 41, item 13).
    if (auto st = EnsurePrivateDir(config.data_dir); !st) {
      return Fail(ErrorCode::kUnavailable, "cannot create data dir: " + st.error().message);
    }
    opts.url = config::DefaultDatabaseUrl(config);
  }
  opts.pool_size = config.sql_pool_size;
  return sql::Store::Open(opts);
}

domain::PasswordHashOptions HashOptions(const config::Config& config) {
  auto o = config.password_hash == config::PasswordCost::kMinimal
               ? domain::PasswordHashOptions::Minimal()
               : domain::PasswordHashOptions::Interactive();
  o.threads = config.password_hash_threads;
  o.max_pending = config.password_hash_queue;
  return o;
}

// Public pages: browsers always revalidate (max-age=0; a 304 costs no render), a shared cache
// may answer from its copy for s-maxage. stale-while-revalidate goes to CDNs only
// (CdnCacheControl): browsers honour it too, and would show a page that old after a change.
std::string PublicCacheControl(const config::Config& config) {
  if (config.shared_max_age_s == 0) {
    return "public, no-cache";
  }
  return "public, max-age=0, s-maxage=" + std::to_string(config.shared_max_age_s);
}

// CDN-Cache-Control (RFC 9213), which browsers ignore; empty: none.
std::string CdnCacheControl(const config::Config& config) {
  if (config.stale_while_revalidate_s == 0) {
    return {};
  }
  return "max-age=" + std::to_string(config.shared_max_age_s) +
         ", stale-while-revalidate=" + std::to_string(config.stale_while_revalidate_s);
}

Status CheckInvocation(const config::Invocation& inv) {
  if (const auto& admin = inv.config.bootstrap_admin) {
    for (Status st :
         {domain::ValidateUsername(admin->name), domain::ValidatePassword(admin->password)}) {
      if (!st) {
        return Fail(st.error().code, "--bootstrap-admin: " + st.error().message);
      }
    }
  }
  if (inv.config.redis_wait_replicas > 0 && !inv.config.redis) {
    return Fail(ErrorCode::kInvalidArgument,
                "--redis-wait-replicas: the embedded Redis has no replicas; give --redis");
  }
  if (inv.command == config::Command::kUserAdd) {
    if (auto st = domain::ValidateUsername(inv.user_name); !st) {
      return Fail(st.error().code, "user add NAME: " + st.error().message);
    }
  }
  return {};
}

Status BootstrapAdmin(sql::Store& store, const config::Config& config) {
  if (!config.bootstrap_admin) {
    return {};
  }
  const std::string& name = config.bootstrap_admin->name;
  auto created = domain::EnsureUser(store, name, config.bootstrap_admin->password,
                                    domain::Role::kAdmin, HashOptions(config));
  if (!created) {
    return Fail(created.error().code, "--bootstrap-admin: " + created.error().message);
  }
  if (*created) {
    spdlog::info("created admin user '{}'", name);
  }
  return {};
}

App::App(config::Config config) : config_(std::move(config)) {}

App::~App() {
  if (server_) {
    server_.reset();
  }
  if (subscriber_) {
    subscriber_->Stop();
  }
  if (redis_) {
    redis_->Stop();
  }
  if (store_) {
    store_->Close();
  }
  if (embedded_redis_) {
    embedded_redis_->Stop();
  }
}

Status App::Start() {
  if (auto st = StartBackend(); !st) {
    return st;
  }
  api::OpsDeps ops;
  ops.redis = redis_.get();
  ops.store = store_.get();
  ops.metrics = &metrics_;
  ops.allow = config_.metrics_allow;
  ops.token = config_.metrics_token;
  if (embedded_redis_) {
    ops.health = [r = embedded_redis_.get()] { return r->Health(); };  // a dead child: 503
  }
  api::RegisterOps(router_, ops);
  api::RegisterWebFiles(router_);

  http::ServerOptions sopts;
  sopts.host = config_.host;
  sopts.port = config_.port;
  sopts.max_body = config_.max_body;
  const size_t open_files = RaiseOpenFileLimit();
  sopts.max_connections = config_.max_connections > 0 ? static_cast<size_t>(config_.max_connections)
                                                      : DefaultMaxConnections(open_files);
  sopts.body_budget = static_cast<size_t>(config_.body_memory_mb) << 20;
  sopts.sites = config_.sites;
  sopts.trusted_proxies = config_.trusted_proxies;
  sopts.proxy_header =
      config_.proxy_forwarded ? http::ProxyHeader::kForwarded : http::ProxyHeader::kXForwarded;
  server_ = std::make_unique<http::Server>(ioc_, sopts, router_, &metrics_);
  if (auto st = server_->Listen(); !st) {
    return st;
  }
  server_->Start();
  flusher_->Start();
  // Without mail or webhooks there is nothing to deliver (and nothing is written).
  if (!config_.smtp.empty() || !config_.webhooks.empty()) {
    notifier_->Start();
  }
  spdlog::info("plauditd listening on http://{}:{} (at most {} connections, {} open files)",
               config_.host.to_string(), server_->port(), sopts.max_connections, open_files);
  net::co_spawn(ioc_, AnnounceSetup(), net::detached);
  return {};
}

Awaitable<void> App::AnnounceSetup() {
  auto needed = co_await setup_->Needed();
  if (!needed) {
    spdlog::warn("cannot tell whether an admin exists: {}", needed.error().message);
  } else if (*needed) {
    spdlog::warn("no admin yet: open http://{}:{}/setup?token={} to create one",
                 config_.host.to_string(), server_->port(), setup_->token());
  }
}

Status App::StartBackend() {
  if (config_.redis) {
    redis_endpoint_ = *config_.redis;
  } else {
    embedded_redis_ = std::make_unique<EmbeddedRedis>(config_.data_dir, config_.redis_server_bin);
    if (auto st = embedded_redis_->Start(); !st) {
      return st;
    }
    redis_endpoint_ = embedded_redis_->endpoint();
  }

  PL_TRY(auto store, OpenStore(config_));
  store_ = std::move(store);
  store_->SetLatencyObserver([m = &metrics_](double s) { m->ObserveSql(s); });
  auto applied = store_->Migrate();
  if (!applied) {
    return tl::unexpected(applied.error());
  }
  if (*applied > 0) {
    spdlog::info("applied {} database migration(s)", *applied);
  }

  redis::ClientOptions ropts;
  ropts.endpoint = redis_endpoint_;
  redis_ = redis::Client::Create(ioc_.get_executor(), ropts);
  redis_->SetLatencyObserver(
      [m = &metrics_](std::string_view cmd, double s) { m->ObserveRedis(cmd, s); });
  redis_->Start();

  if (auto st = BootstrapAdmin(*store_, config_); !st) {
    return st;
  }
  return WireServices();
}

Status App::WireServices() {
  RateLimit login_user = config_.limit_login_user;
  RateLimit login_addr = config_.limit_login_address;
  RateLimit signup_addr = config_.limit_signup_address;
  RateLimit writes_user = config_.limit_writes_user;
  RateLimit requests_addr = config_.limit_requests_address;
  if (!config_.rate_limits) {
    login_user = login_addr = signup_addr = writes_user = requests_addr = RateLimit{};
  }

  hasher_ = std::make_unique<domain::PasswordHasher>(HashOptions(config_));
  sessions_ = std::make_unique<redis::SessionStore>(
      *redis_, std::chrono::seconds(config_.session_ttl_s), 32,
      redis::SessionCacheOptions{std::chrono::milliseconds(config_.session_cache_ms)});
  limiter_ = std::make_unique<redis::RateLimiter>(*redis_);
  user_table_ = std::make_unique<sql::UserTable>(*store_);
  directory_ = std::make_unique<domain::UserDirectory>(*user_table_);
  // Logouts, role changes and deleted accounts in any plauditd reach this one's session cache
  // and user directory through it (each is used only while it is subscribed).
  std::function<RedisEndpoint()> pubsub_node = [weak = std::weak_ptr<redis::Client>(redis_),
                                                fallback = redis_endpoint_] {
    auto client = weak.lock();
    return client ? client->PubSubEndpoint(redis::SessionStore::kInvalidationChannel) : fallback;
  };
  subscriber_ = redis::Subscriber::Create(
      ioc_.get_executor(), std::move(pubsub_node), redis::SessionStore::kInvalidationChannel,
      redis_->ShardedPubSub(),
      {[this, s = sessions_.get(), d = directory_.get()](std::string_view m) {
         s->OnInvalidation(m);
         using Kind = redis::SessionCache::Invalidation::Kind;
         const auto inv = redis::SessionCache::Parse(m);
         if (inv.kind == Kind::kUser) {
           d->Forget(inv.user_id);
         }
         if (inv.kind == Kind::kUnknown) {
           d->Clear();
         }
         // Applied in this process: the publisher may answer its request now.
         net::co_spawn(ioc_, s->Acknowledge(std::string(m)), net::detached);
       },
       [s = sessions_.get(), d = directory_.get()](bool up) {
         s->SetCacheLive(up);
         d->SetLive(up);
       }},
      // A Sentinel's switch moves publishing at once; the subscription follows within this.
      std::chrono::milliseconds(200));
  subscriber_->Start();
  users_ = std::make_unique<domain::UserService>(
      *user_table_, *directory_, *sessions_, *hasher_, *limiter_,
      domain::LoginLimits{login_user, login_addr, signup_addr});
  setup_ = std::make_unique<domain::FirstRunSetup>(*users_, *user_table_, *hasher_, *limiter_,
                                                   login_addr);
  guard_ = std::make_unique<api::Guard>(
      *users_, *limiter_, api::GuardLimits{config_.rate_limits, requests_addr, writes_user});

  article_table_ = std::make_unique<sql::ArticleTable>(*store_);
  change_table_ = std::make_unique<sql::ChangeTable>(*store_);
  article_cache_ = std::make_unique<redis::ArticleCache>(*redis_);
  cache_marks_ = std::make_unique<redis::CacheMarks>(*redis_);
  like_store_ = std::make_unique<redis::LikeStore>(*redis_);
  like_store_->SetReplicaWait(config_.redis_wait_replicas,
                              std::chrono::milliseconds(config_.redis_wait_timeout_ms));
  like_table_ = std::make_unique<sql::LikeTable>(*store_);
  likes_ = std::make_unique<domain::LikeService>(*like_store_, *like_table_);
  articles_ = std::make_unique<domain::ArticleService>(*article_table_, *change_table_,
                                                       *article_cache_, *cache_marks_, *likes_);
  comment_table_ = std::make_unique<sql::CommentTable>(*store_);
  // Notices (API.md "Notifications"): written by the comment writes only when someone is to
  // be told (mail or webhooks configured); the worker runs on every instance.
  comment_table_->set_notices(!config_.smtp.empty() || !config_.webhooks.empty());
  outbox_ = std::make_unique<sql::OutboxTable>(*store_);
  notice_book_ = std::make_unique<sql::NoticeBook>(*store_);
  notice_settings_ = std::make_unique<domain::NoticeSettings>(*notice_book_, !config_.smtp.empty());
  if (!config_.smtp.empty()) {
    fetch::SmtpOptions smtp;
    smtp.url = config_.smtp;
    smtp.threads = 8;  // the worker sends up to 8 at once
    smtp.timeout = std::chrono::milliseconds(config_.smtp_timeout_ms);
    smtp.connect_timeout = std::min(smtp.timeout, smtp.connect_timeout);
    smtp_ = std::make_unique<fetch::SmtpClient>(std::move(smtp));
  }
  if (!config_.webhooks.empty()) {
    fetch::Options hooks;
    hooks.threads = 8;  // the worker sends up to 8 at once; each send holds a thread
    webhook_client_ = std::make_unique<fetch::HttpsClient>(hooks);
  }
  notify::NotifierOptions notify_options;
  notify_options.mail_from = config_.mail_from;
  notify_options.public_url = config_.public_url;
  notify_options.webhooks = config_.webhooks;
  notify_options.webhook_secret = config_.webhook_secret;
  notify_options.interval = std::chrono::milliseconds(config_.notify_interval_ms);
  notify_options.lease_ms = config_.notify_lease_ms;
  notifier_ =
      std::make_unique<notify::Notifier>(ioc_.get_executor(), *outbox_, *notice_book_, smtp_.get(),
                                         webhook_client_.get(), std::move(notify_options));
  notifier_->on_report = [this](const notify::DeliveryReport& r) {
    metrics_.SetOutbox(r.depth, r.oldest_seconds);
    const std::pair<const char*, const notify::DeliveryCounts*> channels[] = {
        {"mail", &r.mail}, {"webhook", &r.webhook}, {"event", &r.event}};
    for (const auto& [name, c] : channels) {
      metrics_.CountNotices(name, "delivered", c->delivered);
      metrics_.CountNotices(name, "skipped", c->skipped);
      metrics_.CountNotices(name, "retried", c->retried);
      metrics_.CountNotices(name, "given_up", c->given_up);
    }
  };
  comment_cache_ = std::make_unique<redis::CommentCache>(*redis_);
  comments_ = std::make_unique<domain::CommentService>(
      *comment_table_, *comment_cache_, *articles_, *likes_, config_.comment_edit_window_s * 1000);
  recent_bodies_ = std::make_unique<redis::RecentBodies>(*redis_);
  moderation_log_ = std::make_unique<sql::ModerationLog>(*store_);
  once_keys_ = std::make_unique<redis::OnceKeys>(*redis_);
  if (!config_.sso.empty()) {
    std::map<std::string, std::string> secrets;
    for (const auto& site : config_.sso) {
      secrets[site.origin] = site.secret;
    }
    sso_ = std::make_unique<domain::SsoSignIn>(*users_, *once_keys_, std::move(secrets));
  }
  if (!config_.oidc.empty() || config_.github) {
    std::vector<domain::SocialProvider> providers;
    providers.reserve(config_.oidc.size() + 1);
    for (const auto& o : config_.oidc) {
      providers.push_back(domain::SocialProvider{o.name, domain::SocialProvider::Kind::kOidc,
                                                 o.issuer, o.client_id, o.client_secret});
    }
    if (config_.github) {
      providers.push_back(domain::SocialProvider{"github", domain::SocialProvider::Kind::kGithub,
                                                 "", config_.github->client_id,
                                                 config_.github->client_secret});
    }
    https_ = std::make_unique<fetch::HttpsClient>();
    sign_in_states_ = std::make_unique<redis::SignInStates>(*redis_);
    social_ = std::make_unique<domain::SocialSignIn>(
        *users_, *sign_in_states_, *https_, std::move(providers), config_.sites,
        domain::SocialUrls{config_.github_url, config_.github_api_url});
  }
  {
    domain::ModerationSettings m;
    m.policy = domain::ParsePolicy(config_.moderation).value_or(domain::ModerationPolicy::kOff);
    m.rules.max_links = config_.max_links;
    m.report_threshold = config_.report_threshold;
    if (!config_.spam_words.empty()) {
      std::ifstream in(config_.spam_words, std::ios::binary);
      if (!in) {
        return Fail(ErrorCode::kInvalidArgument, "--spam-words: cannot read " + config_.spam_words);
      }
      const std::string text((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
      m.rules.words = domain::FoldedWords(text);
      spdlog::info("{} spam words from {}", m.rules.words.size(), config_.spam_words);
    }
    // A posting limit like the others: --rate-limits off turns it off too.
    const bool duplicates = config_.rate_limits && config_.duplicate_window_s > 0;
    m.duplicate_window = std::chrono::seconds(config_.duplicate_window_s);
    comments_->SetModeration(std::move(m), duplicates ? recent_bodies_.get() : nullptr);
    if (config_.rate_limits) {
      comments_->SetNewWriterLimit(*limiter_, config_.limit_new_writer);
    }
    domain::GuestSettings guests;
    guests.mode = domain::ParseGuestMode(config_.guests).value_or(domain::GuestMode::kOff);
    if (config_.rate_limits) {
      guests.limiter = limiter_.get();
      guests.per_address = config_.limit_guest_address;
    }
    guests.mail = !config_.smtp.empty();
    comments_->SetGuests(guests);
  }
  like_flush_ = std::make_unique<flush::LikeFlush>(*like_store_, *like_table_, flush_faults_);
  view_flush_ = std::make_unique<flush::ViewFlush>(*article_cache_, *article_table_, flush_faults_);
  redis_check_ = std::make_unique<flush::RedisCheck>(
      ioc_.get_executor(), *like_store_, *like_table_, *article_cache_, *article_table_,
      *cache_marks_, *like_flush_, *view_flush_, *articles_, *comments_);
  likes_->SetRedisFreshness(redis_check_.get());
  articles_->SetRedisFreshness(redis_check_.get());
  flusher_ = std::make_unique<flush::Flusher>(ioc_.get_executor(), *redis_check_, *view_flush_,
                                              *like_flush_, *articles_, *comments_,
                                              std::chrono::milliseconds(config_.flush_interval_ms));
  flusher_->on_report = [this](const flush::FlushReport& r) {
    metrics_.SetBacklog(r.like_backlog, r.oldest_unflushed_seconds);
    // On the event loop, like the page cache itself (made below, before any pass runs).
    if (page_cache_) {
      metrics_.SetPageCache(page_cache_->hits(), page_cache_->misses(), page_cache_->bytes(),
                            page_cache_->size());
    }
  };

  page_table_ = std::make_unique<sql::PageTable>(*store_, *article_table_);
  page_map_ = std::make_unique<redis::PageMap>(*redis_);
  pages_ = std::make_unique<domain::PageService>(*page_table_, *page_map_, *articles_, *comments_,
                                                 config_.sites);
  if (config_.rate_limits) {
    pages_->SetCreationLimits(
        *limiter_, domain::PageLimits{config_.limit_pages_user, config_.limit_pages_address});
  }
  api::ApiContext ctx;
  ctx.guard = guard_.get();
  ctx.users = users_.get();
  ctx.articles = articles_.get();
  ctx.likes = likes_.get();
  ctx.comments = comments_.get();
  ctx.setup = setup_.get();
  ctx.session_ttl_seconds = config_.session_ttl_s;
  ctx.cookie_secure = config_.cookie_secure;
  ctx.pages = pages_.get();
  page_cache_ = std::make_unique<api::PageCache>(static_cast<size_t>(config_.page_cache_mb) << 20);
  ctx.page_cache = page_cache_.get();
  ctx.moderation_log = moderation_log_.get();
  ctx.sso = sso_.get();
  ctx.social = social_.get();
  ctx.notices = notice_settings_.get();
  ctx.list_views_max_age_ms = config_.list_views_max_age_ms;
  public_cache_control_ = PublicCacheControl(config_);
  ctx.public_cache_control = public_cache_control_;
  cdn_cache_control_ = CdnCacheControl(config_);
  ctx.cdn_cache_control = cdn_cache_control_;
  api::RegisterApi(router_, ctx);
  return {};
}

uint16_t App::port() const { return server_ ? server_->port() : 0; }

int App::Run(bool handle_signals) {
  if (handle_signals) {
    signals_.emplace(ioc_, SIGINT, SIGTERM);
    signals_->async_wait([this](boost::system::error_code ec, int sig) {
      if (!ec) {
        spdlog::info("signal {} received: draining", sig);
        BeginStop();
      }
    });
  }
  ioc_.run();
  return 0;
}

void App::RequestStop() {
  net::post(ioc_, [this] { BeginStop(); });
}

void App::BeginStop() {
  if (stopping_) {
    return;
  }
  stopping_ = true;
  // A child that dies from here on stays dead (a stop is not a crash to restart from).
  if (embedded_redis_) {
    embedded_redis_->BeginShutdown();
  }
  if (signals_) {
    boost::system::error_code ec;
    signals_->cancel(ec);
  }
  auto finish = [this] {
    // Requests are drained: run the last write-behind pass, then let go of Redis. Notices
    // not yet sent stay in the outbox for the next start (or another instance).
    flusher_->Stop();
    notifier_->Stop();
    net::co_spawn(
        ioc_,
        [this]() -> Awaitable<void> {
          auto r = co_await flusher_->FlushAll();
          if (!r) {
            spdlog::error("final flush failed: {}", r.error().message);
          } else {
            spdlog::info("final flush: {} view counts, {} like states", r->views, r->like_changes);
          }
          if (subscriber_) {
            subscriber_->Stop();
          }
          redis_->Stop();
          spdlog::info("drained; stopping");
          ioc_.stop();
        },
        net::detached);
  };
  if (server_) {
    server_->Shutdown(finish);
  } else {
    finish();
  }
}

}  // namespace plaudit::app
