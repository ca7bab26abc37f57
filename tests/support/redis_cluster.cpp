#include "support/redis_cluster.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "support/process.hpp"

namespace plaudit::testing {

namespace {

std::string Sh(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) {
    throw std::runtime_error("popen failed");
  }
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) {
    out.append(buf, n);
  }
  ::pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) {
    out.pop_back();
  }
  return out;
}

}  // namespace

RedisCluster::RedisCluster(int primaries, int replicas) {
  const int total = primaries * (1 + replicas);
  for (int i = 0; i < total; ++i) {
    // A short node timeout: a failed primary is replaced in ~2 s instead of ~30.
    nodes_.push_back(std::make_unique<RedisServer>(
        std::vector<std::string>{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                                 "--cluster-node-timeout", "1000"}));
  }
  std::string create = "redis-cli --cluster create";
  for (const auto& n : nodes_) {
    create += " 127.0.0.1:" + std::to_string(n->port());
  }
  create += " --cluster-replicas " + std::to_string(replicas) + " --cluster-yes";
  const std::string out = Sh(create);
  if (out.find("[OK] All 16384 slots covered") == std::string::npos) {
    throw std::runtime_error("redis-cli --cluster create failed:\n" + out);
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    ids_.push_back(nodes_[i]->Cli("CLUSTER MYID"));
  }
  if (!WaitHealthy()) {
    throw std::runtime_error("the test cluster did not become healthy");
  }
}

std::string RedisCluster::url() const {
  std::string u = "redis-cluster://";
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (i > 0) {
      u += ',';
    }
    u += "127.0.0.1:" + std::to_string(nodes_[i]->port());
  }
  return u;
}

std::string RedisCluster::NodeId(size_t i) const { return ids_.at(i); }

size_t RedisCluster::AnyRunning() const {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i]->running()) {
      return i;
    }
  }
  throw std::runtime_error("no cluster node is running");
}

size_t RedisCluster::IndexOfPort(int port) const {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i]->port() == port) {
      return i;
    }
  }
  throw std::runtime_error("no cluster node on port " + std::to_string(port));
}

std::vector<size_t> RedisCluster::Primaries() const {
  // CLUSTER NODES: id addr flags primary ping pong epoch link slot...; a primary that serves
  // slots lists them.
  std::vector<size_t> out;
  for (const std::string& line : Lines(nodes_[AnyRunning()]->Cli("CLUSTER NODES"))) {
    std::istringstream in(line);
    std::string id, addr, flags, primary, ping, pong, epoch, link, slot;
    in >> id >> addr >> flags >> primary >> ping >> pong >> epoch >> link;
    if (flags.find("master") == std::string::npos || flags.find("fail") != std::string::npos) {
      continue;
    }
    bool serves = false;
    while (in >> slot) {
      serves = serves || slot.front() != '[';
    }
    if (!serves) {
      continue;
    }
    const size_t colon = addr.find(':');
    out.push_back(IndexOfPort(std::stoi(addr.substr(colon + 1, addr.find('@') - colon - 1))));
  }
  std::sort(out.begin(), out.end());
  return out;
}

size_t RedisCluster::OwnerOf(int slot) const {
  for (const std::string& line : Lines(nodes_[AnyRunning()]->Cli("CLUSTER NODES"))) {
    std::istringstream in(line);
    std::string id, addr, flags, primary, ping, pong, epoch, link;
    in >> id >> addr >> flags >> primary >> ping >> pong >> epoch >> link;
    if (flags.find("master") == std::string::npos) {
      continue;
    }
    for (std::string range; in >> range;) {
      if (range.front() == '[') {
        continue;  // a slot being migrated or imported
      }
      const size_t dash = range.find('-');
      const int first = std::stoi(range.substr(0, dash));
      const int last = dash == std::string::npos ? first : std::stoi(range.substr(dash + 1));
      if (slot >= first && slot <= last) {
        const size_t colon = addr.find(':');
        return IndexOfPort(std::stoi(addr.substr(colon + 1, addr.find('@') - colon - 1)));
      }
    }
  }
  throw std::runtime_error("no node serves slot " + std::to_string(slot));
}

std::string RedisCluster::Cli(const std::string& args) const {
  return Sh("redis-cli -c -p " + std::to_string(nodes_[AnyRunning()]->port()) + " " + args);
}

void RedisCluster::FlushAll() {
  for (size_t i : Primaries()) {
    nodes_[i]->Cli("FLUSHALL");
  }
}

bool RedisCluster::WaitHealthy(std::chrono::milliseconds timeout) {
  return WaitFor(
      [&] {
        std::string view;
        for (const auto& n : nodes_) {
          if (!n->running()) {
            continue;
          }
          if (n->Cli("CLUSTER INFO").find("cluster_state:ok") == std::string::npos) {
            return false;
          }
          // Who serves what, as this node sees it (its CLUSTER SLOTS, sorted by slot).
          std::string slots = n->Cli("CLUSTER SLOTS");
          std::vector<std::string> lines = Lines(slots);
          std::string seen;
          for (const auto& l : lines) {
            if (l.size() > 0 && std::isdigit(static_cast<unsigned char>(l[0]))) {
              seen += l + ",";
            }
          }
          if (view.empty()) {
            view = seen;
          } else if (view != seen) {
            return false;
          }
        }
        return !view.empty();
      },
      timeout);
}

void RedisCluster::BeginMove(int slot, size_t to) {
  const size_t from = OwnerOf(slot);
  const std::string s = std::to_string(slot);
  nodes_[to]->Cli("CLUSTER SETSLOT " + s + " IMPORTING " + ids_[from]);
  nodes_[from]->Cli("CLUSTER SETSLOT " + s + " MIGRATING " + ids_[to]);
}

void RedisCluster::MoveKeys(int slot, size_t to, size_t count) {
  const size_t from = OwnerOf(slot);
  const std::string s = std::to_string(slot);
  size_t moved = 0;
  while (count == 0 || moved < count) {
    const size_t batch = count == 0 ? 100 : std::min<size_t>(100, count - moved);
    auto keys =
        Lines(nodes_[from]->Cli("CLUSTER GETKEYSINSLOT " + s + " " + std::to_string(batch)));
    if (keys.empty()) {
      break;
    }
    std::string migrate =
        "MIGRATE 127.0.0.1 " + std::to_string(nodes_[to]->port()) + " \"\" 0 5000 KEYS";
    for (const auto& k : keys) {
      migrate += " " + ShellQuote(k);
    }
    const std::string r = nodes_[from]->Cli(migrate);
    if (r != "OK") {
      throw std::runtime_error("MIGRATE failed: " + r);
    }
    moved += keys.size();
  }
}

void RedisCluster::FinishMove(int slot, size_t to) {
  const std::string s = std::to_string(slot);
  // The target first, then the source, then the rest (as redis-cli does).
  nodes_[to]->Cli("CLUSTER SETSLOT " + s + " NODE " + ids_[to]);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (i != to && nodes_[i]->running()) {
      nodes_[i]->Cli("CLUSTER SETSLOT " + s + " NODE " + ids_[to]);
    }
  }
}

}  // namespace plaudit::testing
