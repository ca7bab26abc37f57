#pragma once
// Dropping a family of keys without blocking Redis: SCAN in batches, each batch's UNLINKs in
// one pipelined write. For the recoveries of a Redis that came back older (like shards, view
// counts), which drop every cache key of a kind.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "redis/client/client.hpp"

namespace plaudit::redis {

// Calls `each` with every batch of keys matching `pattern` (a SCAN MATCH glob), on every
// primary (Client::Primaries). A key may come more than once; each call's keys are moved in.
Awaitable<Status> ScanKeys(Client& client, std::string pattern,
                           std::function<Awaitable<Status>(std::vector<std::string>)> each);

// Unlinks every key matching `pattern` (a SCAN MATCH glob) for which `drop` is true.
Awaitable<Status> UnlinkMatching(Client& client, std::string pattern,
                                 std::function<bool(std::string_view)> drop);

}  // namespace plaudit::redis
