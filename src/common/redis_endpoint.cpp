#include "common/redis_endpoint.hpp"

#include <boost/url/parse.hpp>
#include <charconv>

namespace plaudit {

RedisEndpoint RedisEndpoint::Cluster(std::vector<Node> seeds) {
  RedisEndpoint e;
  e.topology = Topology::kCluster;
  if (!seeds.empty()) {
    e.host = seeds.front().host, e.port = seeds.front().port;
  }
  e.nodes = std::move(seeds);
  return e;
}

RedisEndpoint RedisEndpoint::Sentinel(std::vector<Node> sentinels, std::string service, int db) {
  RedisEndpoint e = Cluster(std::move(sentinels));
  e.topology = Topology::kSentinel;
  e.service = std::move(service);
  e.db = db;
  return e;
}

std::string RedisEndpoint::Describe() const {
  std::string where;
  if (topology == Topology::kSingle) {
    where = unix_path.empty() ? host + ":" + std::to_string(port) : unix_path;
  } else {
    where = topology == Topology::kCluster ? "cluster " : "sentinel ";
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (i > 0) {
        where += ',';
      }
      where += nodes[i].host + ":" + std::to_string(nodes[i].port);
    }
    if (topology == Topology::kSentinel) {
      where += " service " + service;
    }
  }
  return db == 0 ? where : where + " db " + std::to_string(db);
}

namespace {

tl::unexpected<Error> Invalid(std::string message) {
  return Fail(ErrorCode::kInvalidArgument, std::move(message));
}

Result<int> ParseDb(std::string_view text) {
  int db = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), db);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || db < 0) {
    return Invalid("invalid database number \"" + std::string(text) + "\"");
  }
  return db;
}

// "host:port[,host:port...]": the authority of a cluster or Sentinel URL, which
// boost::urls does not take (one host per authority). IPv6 hosts go in brackets.
Result<std::vector<RedisEndpoint::Node>> ParseNodes(std::string_view list, std::string_view want) {
  std::vector<RedisEndpoint::Node> nodes;
  while (true) {
    const size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    auto parsed = boost::urls::parse_authority(item);
    if (!parsed || parsed->has_userinfo() || parsed->host_address().empty() ||
        !parsed->has_port() || parsed->port_number() == 0) {
      return Invalid("\"" + std::string(item) + "\" is not host:port (want " + std::string(want) +
                     ")");
    }
    nodes.push_back({std::string(parsed->host_address()), parsed->port_number()});
    if (comma == std::string_view::npos) {
      break;
    }
    list.remove_prefix(comma + 1);
  }
  return nodes;
}

constexpr std::string_view kClusterForm = "redis-cluster://host:port[,host:port...]";
constexpr std::string_view kSentinelForm = "redis-sentinel://host:port[,host:port...]/service";

Result<RedisEndpoint> ParseClusterUrl(std::string_view rest) {
  if (rest.find('@') != std::string_view::npos) {
    return Invalid("credentials (AUTH) are not supported");
  }
  const size_t slash = rest.find('/');
  if (slash != std::string_view::npos && rest.substr(slash) != "/") {
    return Invalid("a Redis Cluster has only database 0 (want " + std::string(kClusterForm) + ")");
  }
  PL_TRY(auto nodes, ParseNodes(rest.substr(0, slash), kClusterForm));
  return RedisEndpoint::Cluster(std::move(nodes));
}

Result<RedisEndpoint> ParseSentinelUrl(std::string_view rest) {
  if (rest.find('@') != std::string_view::npos) {
    return Invalid("credentials (AUTH) are not supported");
  }
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos || slash + 1 == rest.size()) {
    return Invalid("missing the service name (want " + std::string(kSentinelForm) + ")");
  }
  std::string_view path = rest.substr(slash + 1);
  int db = 0;
  if (const size_t q = path.find("?db="); q != std::string_view::npos) {
    PL_TRY(auto parsed, ParseDb(path.substr(q + 4)));
    db = parsed;
    path = path.substr(0, q);
  }
  if (path.empty() || path.find_first_of("/?#%") != std::string_view::npos) {
    return Invalid("\"" + std::string(path) + "\" is not a service name (want " +
                   std::string(kSentinelForm) + ")");
  }
  PL_TRY(auto nodes, ParseNodes(rest.substr(0, slash), kSentinelForm));
  return RedisEndpoint::Sentinel(std::move(nodes), std::string(path), db);
}

}  // namespace

Result<RedisEndpoint> ParseRedisUrl(std::string_view url) {
  if (url.starts_with("redis-cluster://")) {
    return ParseClusterUrl(url.substr(16));
  }
  if (url.starts_with("redis-sentinel://")) {
    return ParseSentinelUrl(url.substr(17));
  }
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed) {
    return Invalid("not a URL (want redis://host:port[/db], unix:///path, " +
                   std::string(kClusterForm) + " or " + std::string(kSentinelForm) + ")");
  }
  const auto& u = *parsed;
  if (u.has_userinfo()) {
    return Invalid("credentials (AUTH) are not supported");
  }
  RedisEndpoint e;
  if (u.scheme() == "unix") {
    e.unix_path = u.path();
    if (e.unix_path.empty() || !u.encoded_host().empty()) {
      return Invalid("want unix:///absolute/path");
    }
    if (auto it = u.params().find("db"); it != u.params().end()) {
      auto db = ParseDb((*it).value);
      PL_CHECK(db);
      e.db = *db;
    }
  } else if (u.scheme() == "redis") {
    e.host = u.host_address();
    if (e.host.empty()) {
      return Invalid("missing host (want redis://host:port[/db])");
    }
    if (u.has_port()) {
      e.port = u.port_number();
    }
    std::string path = u.path();
    if (!path.empty() && path != "/") {
      auto db = ParseDb(std::string_view(path).substr(1));
      PL_CHECK(db);
      e.db = *db;
    }
  } else {
    return Invalid("unsupported scheme \"" + std::string(u.scheme()) +
                   "\" (want redis://, unix://, redis-cluster:// or redis-sentinel://)");
  }
  return e;
}

}  // namespace plaudit
