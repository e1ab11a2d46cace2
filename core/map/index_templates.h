#pragma once

// Index templates in the shard map (issue 31): their records' codec, the built-in default, how a
// template is named (NAME or NAME:VERSION), the lookups every reader of the map uses, and the diff
// between two templates' settings that shardmapctl and the console both print.

#include "core/map/shard_map.h"
#include "core/util/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardmap::core {

std::string encode(const IndexTemplateRecord& record);
Result<IndexTemplateRecord> decodeIndexTemplate(const std::string& json);

// kDefaultTemplateName version 1: today's index (defaultIndexSettings()), in no store.
const IndexTemplateRecord& defaultIndexTemplate();

// A template's name: 1-64 characters of a-z, 0-9, '-' and '_', starting with a letter.
Status validateTemplateName(std::string_view name);

// A template as an administrator names it: "NAME" (version 0: the newest) or "NAME:VERSION".
struct TemplateRef {
    std::string name;
    std::uint32_t version = 0;
};
Result<TemplateRef> parseTemplateRef(std::string_view text);
// "NAME:VERSION".
std::string templateLabel(const std::string& name, std::uint32_t version);

// Every template of the map, the built-in default first, then by name and version.
std::vector<IndexTemplateRecord> templatesOf(const MapSnapshot& map);
// The template named (version 0: its newest); NotFound saying which versions there are.
Result<IndexTemplateRecord> findTemplate(const MapSnapshot& map, const TemplateRef& ref);
// What a shard was built with: its record's name and version, or the default's.
TemplateRef templateOf(const ShardRecord& shard);
// The shards built with that template version.
std::vector<std::string> shardsBuiltWith(const MapSnapshot& map, const std::string& name, std::uint32_t version);

// How `to` differs from `from`, one sentence a line, empty when they are the same: fields added,
// removed (with what becomes of their values: kept and searched as other text, no longer by
// field:term), made stored only or indexed, reweighted; the tokenizer and its options; prefixes.
std::vector<std::string> diffIndexSettings(const IndexSettings& from, const IndexSettings& to);

} // namespace shardmap::core
