// What stands between plauditd and its readers: who may read /metrics and /readyz, which
// proxies are believed about the client, the session cookie's Secure, the pages kept in memory
// and how long a CDN may keep them.
#include "config/config_detail.hpp"

namespace plaudit::config::detail {

void AddMetricsOptions(CLI::App& app, Config& c) {
  AddParsed(app, "--metrics-allow", c.metrics_allow, AddressSet::Parse,
            "who may read /metrics and /readyz: comma-separated CIDRs or addresses; "
            "requests that came through a proxy are refused whatever their address")
      ->envname("PLAUDIT_METRICS_ALLOW")
      ->default_str(c.metrics_allow.ToString());
  app.add_option("--metrics-token", c.metrics_token,
                 "when set, /metrics and /readyz also need `Authorization: Bearer <token>` "
                 "(for a scraper behind a proxy on the same host)")
      ->envname("PLAUDIT_METRICS_TOKEN");
}

void AddProxyOptions(CLI::App& app, Config& c) {
  AddParsed(app, "--trusted-proxies", c.trusted_proxies, AddressSet::Parse,
            "proxies whose X-Forwarded-For/Forwarded/X-Forwarded-Proto are believed: "
            "comma-separated CIDRs or addresses (none by default)")
      ->envname("PLAUDIT_TRUSTED_PROXIES");
  AddParsed(app, "--proxy-header", c.proxy_forwarded, ParseProxyHeader,
            "which headers the trusted proxies write: x-forwarded (X-Forwarded-For/-Proto/-Host) "
            "or forwarded (RFC 7239); the other family is ignored")
      ->envname("PLAUDIT_PROXY_HEADER")
      ->default_str("x-forwarded");
  AddParsed(app, "--cookie-secure", c.cookie_secure, ParseOnOff,
            "on: the session cookie always carries Secure (off: only over HTTPS)")
      ->envname("PLAUDIT_COOKIE_SECURE")
      ->default_str("off");
}

void AddCacheOptions(CLI::App& app, Config& c) {
  app.add_option("--page-cache-mb", c.page_cache_mb,
                 "MiB of rendered comment pages and article lists kept in memory (0: none)")
      ->envname("PLAUDIT_PAGE_CACHE_MB")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20))
      ->capture_default_str();
  app.add_option("--list-views-max-age-ms", c.list_views_max_age_ms,
                 "ms the view counts of a kept article list page may lag (0: never)")
      ->envname("PLAUDIT_LIST_VIEWS_MAX_AGE_MS")
      ->check(CLI::Range(int64_t{0}, int64_t{3'600'000}))
      ->capture_default_str();
  app.add_option("--shared-max-age-s", c.shared_max_age_s,
                 "seconds a CDN may serve a public comment page without asking (s-maxage)")
      ->envname("PLAUDIT_SHARED_MAX_AGE_S")
      ->check(CLI::Range(int64_t{0}, int64_t{86400}))
      ->capture_default_str();
  app.add_option("--stale-while-revalidate-s", c.stale_while_revalidate_s,
                 "seconds a CDN may serve a stale public page while it revalidates")
      ->envname("PLAUDIT_STALE_WHILE_REVALIDATE_S")
      ->check(CLI::Range(int64_t{0}, int64_t{86400}))
      ->capture_default_str();
}

}  // namespace plaudit::config::detail
