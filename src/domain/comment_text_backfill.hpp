#pragma once
// Comments written before their html was stored (migration 024) get it once, at start-up,
// before plauditd serves: after that every row a cache fill reads carries its rendering (a
// hash filled earlier with an empty html takes SQL's at the same version: comment_put.lua).
// `plauditd migrate` and `serve` run it after the migrations. Each pass looks only at comments
// after the id the last pass reached (plaudit_meta 'comment_html_through'), up to the newest
// id when it began, so a start reads the table once, not every time. Two instances starting at
// once render the same rows harmlessly (each update applies only while the body is the one
// rendered and html is still empty); the row's version stays.
#include <cstdint>

#include "common/result.hpp"
#include "sql/store.hpp"
#include "text/markdown.hpp"

namespace plaudit::domain {

// How many comments got their html. Synchronous (start-up), in batches of kBatch rows.
Result<int64_t> RenderUnrenderedComments(sql::Store& store, const text::MarkdownOptions& options);

}  // namespace plaudit::domain
