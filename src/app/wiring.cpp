// Building the backend (StartBackend): Redis (embedded or given), the migrated SQL store, the
// Redis client; then every service, each after what it holds, and the API routes over them
// (WireServices). Serving and stopping them is app.cpp's.
#include <spdlog/spdlog.h>

#include <fstream>

#include "api/routes.hpp"
#include "app/app.hpp"
#include "sql/cache_shards.hpp"

namespace plaudit::app {

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
  store_->SetGroupObserver([m = &metrics_](size_t jobs) { m->ObserveSqlGroup(jobs); });
  // Comment writes are grouped by article (RunGrouped's order): a group locks its articles
  // before its first job. Set here, once, before any job runs.
  store_->SetGroupLocks(sql::LockArticleRows);
  auto applied = store_->Migrate();
  PL_CHECK(applied);
  if (*applied > 0) {
    spdlog::info("applied {} database migration(s)", *applied);
  }
  PL_CHECK(RenderStoredComments(*store_, config_));

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
  articles_ = std::make_unique<domain::ArticleService>(
      *article_table_, *change_table_, *article_cache_, *cache_marks_, *likes_, write_faults_);
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
      *comment_table_, *comment_cache_, *articles_, *likes_, config_.comment_edit_window_s * 1000,
      write_faults_);
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
    text::MarkdownOptions markdown;
    markdown.images = config_.comment_images;
    comments_->SetText(std::move(markdown));
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

  // Search: the index follows the change feed (domain/search.hpp).
  search_table_ = std::make_unique<sql::SearchTable>(*store_);
  search_ = std::make_unique<domain::SearchService>(*search_table_, *articles_);
  search_indexer_ = std::make_unique<flush::SearchIndexer>(
      ioc_.get_executor(), *search_, std::chrono::milliseconds(config_.search_interval_ms));

  page_table_ = std::make_unique<sql::PageTable>(*store_, *article_table_);
  page_map_ = std::make_unique<redis::PageMap>(*redis_);
  pages_ = std::make_unique<domain::PageService>(*page_table_, *page_map_, *articles_, *comments_,
                                                 config_.sites);
  if (config_.rate_limits) {
    pages_->SetCreationLimits(
        *limiter_, domain::PageLimits{config_.limit_pages_user, config_.limit_pages_address});
  }
  api::ApiContext ctx;
  ctx.search = search_.get();
  ctx.guard = guard_.get();
  ctx.users = users_.get();
  ctx.articles = articles_.get();
  ctx.likes = likes_.get();
  ctx.comments = comments_.get();
  ctx.setup = setup_.get();
  ctx.session_ttl_seconds = config_.session_ttl_s;
  ctx.cookie_secure = config_.cookie_secure;
  ctx.pages = pages_.get();
  page_cache_ =
      std::make_unique<render::PageCache>(static_cast<size_t>(config_.page_cache_mb) << 20);
  renderer_ = std::make_unique<render::Renderer>(
      *page_cache_, *comments_, *articles_, *likes_,
      render::RendererOptions{PublicCacheControl(config_), CdnCacheControl(config_),
                              config_.list_views_max_age_ms});
  ctx.render = renderer_.get();
  // Live updates: every instance announces on one channel and listens to it.
  live_channel_ = std::make_unique<redis::LiveChannel>(*redis_);
  live_feed_ = std::make_unique<domain::LiveFeed>(ioc_.get_executor(), *live_channel_);
  comments_->SetLive(*live_feed_);
  articles_->SetLive(*live_feed_);
  render::LiveLimits live_limits;
  live_limits.max_streams = static_cast<size_t>(config_.live_streams);
  live_limits.per_address = static_cast<size_t>(config_.live_streams_per_address);
  live_streams_ = std::make_unique<render::LiveStreams>(ioc_.get_executor(), *comments_, *likes_,
                                                        *live_feed_, live_limits);
  std::function<RedisEndpoint()> live_node = [weak = std::weak_ptr<redis::Client>(redis_),
                                              fallback = redis_endpoint_] {
    auto client = weak.lock();
    return client ? client->PubSubEndpoint(redis::LiveChannel::Channel()) : fallback;
  };
  live_subscriber_ = redis::Subscriber::Create(
      ioc_.get_executor(), std::move(live_node), redis::LiveChannel::Channel(),
      /*sharded=*/false,
      {[f = live_feed_.get()](std::string_view m) { f->Received(m); },
       [f = live_feed_.get()](bool up) { f->SubscriptionChanged(up); }},
      // Following a Sentinel's primary (the old one keeps its subscribers until it is
      // demoted, and hears nothing meanwhile). Not on a cluster: its bus forwards a PUBLISH to
      // every node, so any node serves, and a move would cost every reader a reset.
      redis_->ShardedPubSub() ? std::chrono::milliseconds(0) : std::chrono::milliseconds(200));
  live_subscriber_->Start();
  ctx.live = live_streams_.get();
  ctx.moderation_log = moderation_log_.get();
  ctx.sso = sso_.get();
  ctx.social = social_.get();
  ctx.notices = notice_settings_.get();
  api::RegisterApi(router_, ctx);
  return {};
}

}  // namespace plaudit::app
