#pragma once
// Wiring and lifetimes: config → embedded Redis (if needed) → SQL store (migrated) → Redis
// client → routes → HTTP server; and the reverse on shutdown.
//
// Threading: one io_context run on one thread serves HTTP and talks to Redis; SQL calls run
// on the store's own pool. One event-loop thread per process is deliberate: there are no
// locks on the request path, and concurrent requests share Redis round trips. A bigger box
// runs several plauditd processes on one Redis and one database (nothing relies on
// process-local state for correctness).
//
// App's members are defined in two files: wiring.cpp builds the backend and the services
// (StartBackend, WireServices); app.cpp has the rest of the lifetime (Start, Run, the stop,
// teardown). The free functions after the class are startup.cpp's.
#include <atomic>
#include <memory>
#include <optional>

#include "api/guard.hpp"
#include "app/embedded_redis.hpp"
#include "common/net.hpp"
#include "common/result.hpp"
#include "config/config.hpp"
#include "domain/articles.hpp"
#include "domain/comments.hpp"
#include "domain/likes.hpp"
#include "domain/notice_settings.hpp"
#include "domain/page_threads.hpp"
#include "domain/password_hasher.hpp"
#include "domain/search.hpp"
#include "domain/setup.hpp"
#include "domain/social_sign_in.hpp"
#include "domain/sso_sign_in.hpp"
#include "domain/users.hpp"
#include "flush/flusher.hpp"
#include "flush/search_indexer.hpp"
#include "http/metrics.hpp"
#include "http/router.hpp"
#include "http/server.hpp"
#include "notify/notifier.hpp"
#include "redis/article_cache.hpp"
#include "redis/cache_marks.hpp"
#include "redis/client/client.hpp"
#include "redis/client/subscriber.hpp"
#include "redis/like_store.hpp"
#include "redis/rate_limiter.hpp"
#include "redis/sessions.hpp"
#include "render/live_streams.hpp"
#include "render/page_cache.hpp"
#include "render/renderer.hpp"
#include "sql/articles.hpp"
#include "sql/comments.hpp"
#include "sql/likes.hpp"
#include "sql/search.hpp"
#include "sql/store.hpp"
#include "sql/users.hpp"

namespace plaudit::app {

class App {
 public:
  explicit App(config::Config config);
  ~App();

  // Starts everything and listens. Routes added to router() before Start() are served too.
  Status Start();
  // Starts Redis, SQL and the services, without HTTP (for one-shot subcommands).
  Status StartBackend();
  // Serves on the calling thread until a graceful stop completes; returns the exit code.
  // With handle_signals, SIGINT and SIGTERM begin the graceful stop.
  int Run(bool handle_signals = true);
  // Begins the graceful stop; safe from any thread.
  void RequestStop();

  uint16_t port() const;
  net::io_context& io() { return ioc_; }
  http::Router& router() { return router_; }
  redis::Client& redis() { return *redis_; }
  render::PageCache& page_cache() { return *page_cache_; }
  redis::SessionStore& sessions() { return *sessions_; }
  domain::PasswordHasher& hasher() { return *hasher_; }
  sql::Store& store() { return *store_; }
  http::Metrics& metrics() { return metrics_; }
  const config::Config& config() const { return config_; }
  flush::Flusher& flusher() { return *flusher_; }
  notify::Notifier& notifier() { return *notifier_; }
  sql::OutboxTable& outbox() { return *outbox_; }
  flush::LikeFlush& like_flush() { return *like_flush_; }
  flush::ViewFlush& view_flush() { return *view_flush_; }
  // Where tests stop a flush pass as a crash would (flush/fault_points.hpp); empty otherwise.
  flush::FaultPoints& flush_faults() { return flush_faults_; }
  // Where tests fail or delay a committed write's Redis step (domain/write_faults.hpp).
  domain::WriteFaults& write_faults() { return write_faults_; }
  flush::RedisCheck& redis_check() { return *redis_check_; }
  domain::ArticleService& articles() { return *articles_; }
  domain::LikeService& likes() { return *likes_; }
  redis::LikeStore& like_store() { return *like_store_; }
  sql::LikeTable& like_table() { return *like_table_; }
  domain::CommentService& comments() { return *comments_; }
  domain::PageService& pages() { return *pages_; }
  render::LiveStreams& live_streams() { return *live_streams_; }
  domain::LiveFeed& live_feed() { return *live_feed_; }
  domain::FirstRunSetup& setup() { return *setup_; }
  domain::SearchService& search() { return *search_; }

 private:
  void BeginStop();
  Status WireServices();
  // Logs the first-run setup link when no admin exists yet (domain/setup.hpp).
  Awaitable<void> AnnounceSetup();
  // The shutdown's last write-behind pass, tried again for a few seconds while a backend is
  // unreachable.
  Awaitable<Result<flush::FlushReport>> FinalFlush();

  config::Config config_;
  net::io_context ioc_{1};
  http::Metrics metrics_;
  http::Router router_;
  std::unique_ptr<EmbeddedRedis> embedded_redis_;
  std::unique_ptr<sql::Store> store_;
  std::shared_ptr<redis::Client> redis_;
  std::unique_ptr<domain::PasswordHasher> hasher_;
  std::unique_ptr<redis::SessionStore> sessions_;
  std::shared_ptr<redis::Subscriber> subscriber_;  // session and account invalidations
  RedisEndpoint redis_endpoint_;                   // the one in use (embedded or given)
  std::unique_ptr<redis::RateLimiter> limiter_;
  std::unique_ptr<sql::UserTable> user_table_;
  std::unique_ptr<domain::UserDirectory> directory_;
  std::unique_ptr<domain::UserService> users_;
  std::unique_ptr<domain::FirstRunSetup> setup_;
  std::unique_ptr<api::Guard> guard_;
  std::unique_ptr<sql::ArticleTable> article_table_;
  std::unique_ptr<sql::ChangeTable> change_table_;
  std::unique_ptr<redis::ArticleCache> article_cache_;
  std::unique_ptr<redis::CacheMarks> cache_marks_;
  std::unique_ptr<redis::LikeStore> like_store_;
  std::unique_ptr<sql::LikeTable> like_table_;
  std::unique_ptr<domain::LikeService> likes_;
  domain::WriteFaults write_faults_;                  // before the services that hold it
  std::unique_ptr<domain::ArticleService> articles_;  // after likes_: it holds a reference
  std::unique_ptr<sql::CommentTable> comment_table_;
  std::unique_ptr<sql::OutboxTable> outbox_;
  std::unique_ptr<sql::NoticeBook> notice_book_;
  std::unique_ptr<domain::NoticeSettings> notice_settings_;
  std::unique_ptr<fetch::SmtpClient> smtp_;
  std::unique_ptr<fetch::HttpsClient> webhook_client_;
  std::unique_ptr<notify::Notifier> notifier_;  // after what it holds
  std::unique_ptr<redis::CommentCache> comment_cache_;
  std::unique_ptr<redis::RecentBodies> recent_bodies_;
  std::unique_ptr<sql::ModerationLog> moderation_log_;
  std::unique_ptr<redis::OnceKeys> once_keys_;
  std::unique_ptr<domain::SsoSignIn> sso_;
  std::unique_ptr<fetch::HttpsClient> https_;
  std::unique_ptr<redis::SignInStates> sign_in_states_;
  std::unique_ptr<domain::SocialSignIn> social_;
  std::unique_ptr<domain::CommentService> comments_;
  std::unique_ptr<sql::PageTable> page_table_;
  std::unique_ptr<redis::PageMap> page_map_;
  std::unique_ptr<domain::PageService> pages_;  // after articles_ and comments_: it holds them
  std::unique_ptr<render::PageCache> page_cache_;
  std::unique_ptr<render::Renderer> renderer_;  // after page_cache_ and the services it holds
  // Live updates: the channel, the feed the comment service announces on, this instance's
  // streams (after comments_, which they read), and the subscription that feeds them.
  std::unique_ptr<redis::LiveChannel> live_channel_;
  std::unique_ptr<domain::LiveFeed> live_feed_;
  std::unique_ptr<render::LiveStreams> live_streams_;
  std::shared_ptr<redis::Subscriber> live_subscriber_;
  flush::FaultPoints flush_faults_;
  std::unique_ptr<flush::LikeFlush> like_flush_;
  std::unique_ptr<flush::ViewFlush> view_flush_;
  std::unique_ptr<flush::RedisCheck> redis_check_;
  std::unique_ptr<flush::Flusher> flusher_;
  std::unique_ptr<sql::SearchTable> search_table_;
  std::unique_ptr<domain::SearchService> search_;  // after articles_: it holds it
  std::unique_ptr<flush::SearchIndexer> search_indexer_;
  std::unique_ptr<http::Server> server_;
  std::optional<net::signal_set> signals_;
  bool stopping_ = false;
};

// Defined in startup.cpp: the start-up steps that need no App (also used by commands.cpp).

// Opens the configured store (SQLite default path resolved) without migrating.
Result<std::unique_ptr<sql::Store>> OpenStore(const config::Config& config);
// Renders the stored comments from before their html was kept (migration 024), logging how
// many; after the migrations, before anything is served.
Status RenderStoredComments(sql::Store& store, const config::Config& config);
// The Argon2id cost and bounds of the config.
domain::PasswordHashOptions HashOptions(const config::Config& config);
// Cache-Control and CDN-Cache-Control of public (anonymous) comment pages, from the config.
std::string PublicCacheControl(const config::Config& config);
std::string CdnCacheControl(const config::Config& config);
// The checks of an invocation that need domain's rules (--bootstrap-admin's name and
// password, user add's NAME): made before anything starts, like config::Parse's.
Status CheckInvocation(const config::Invocation& inv);
// Creates the --bootstrap-admin user if it does not exist yet.
Status BootstrapAdmin(sql::Store& store, const config::Config& config);

}  // namespace plaudit::app
