#pragma once
// Where a Redis URL points (no AUTH):
//   redis://host[:port][/db], unix:///path[?db=N]      one redis-server;
//   redis-cluster://host:port[,host:port...]           a Redis Cluster, by any of its nodes;
//   redis-sentinel://host:port[,host:port...]/service  the primary Sentinel names `service`.
// Parsed once at start-up (src/config, --redis); redis::Client::Create picks the client for
// the topology, and redis::Subscriber connects where that client says.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"

namespace plaudit {

struct RedisEndpoint {
  enum class Topology { kSingle, kCluster, kSentinel };
  struct Node {
    std::string host;
    int port = 6379;
    friend bool operator==(const Node&, const Node&) = default;
  };

  std::string host;
  int port = 6379;
  std::string unix_path;  // set for unix:// URLs
  int db = 0;
  // kCluster: the seed nodes; kSentinel: the Sentinels. host and port are the first of them.
  Topology topology = Topology::kSingle;
  std::vector<Node> nodes;
  std::string service;  // kSentinel: the name Sentinel monitors the primary by

  static RedisEndpoint Tcp(std::string host, int port = 6379, int db = 0) {
    RedisEndpoint e;
    e.host = std::move(host);
    e.port = port;
    e.db = db;
    return e;
  }
  static RedisEndpoint Unix(std::string path, int db = 0) {
    RedisEndpoint e;
    e.unix_path = std::move(path);
    e.db = db;
    return e;
  }
  static RedisEndpoint Cluster(std::vector<Node> seeds);
  static RedisEndpoint Sentinel(std::vector<Node> sentinels, std::string service, int db = 0);

  std::string Describe() const;

  friend bool operator==(const RedisEndpoint&, const RedisEndpoint&) = default;
};

// kInvalidArgument naming the problem (not the flag) when `url` is not a supported Redis URL.
Result<RedisEndpoint> ParseRedisUrl(std::string_view url);

}  // namespace plaudit
