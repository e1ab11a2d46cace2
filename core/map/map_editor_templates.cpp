// MapEditor's edits of index templates (issue 31): a new version of a template is one create-only
// commit with its audit record; a version is never changed in place.
#include "core/map/index_templates.h"
#include "core/map/map_editor.h"
#include "core/util/clock.h"

namespace shardmap::core {

Result<IndexTemplateRecord> MapEditor::createTemplate(
    const std::string& name, const IndexSettings& settings, const std::string& description, const Actor& actor)
{
    if (auto valid = validateTemplateName(name); !valid)
        return valid.error();
    if (name == kDefaultTemplateName)
        return makeError(ErrorCode::InvalidArgument,
            "template 'default' is today's built-in index and cannot change; give the new template another name");
    if (auto valid = validateIndexSettings(settings); !valid)
        return valid.error();
    auto map = snapshot();
    if (!map)
        return map.error();
    IndexTemplateRecord record { name, 1, settings, description, actor.name, nowUnixMs() };
    if (auto newest = findTemplate(*map, { name, 0 })) {
        if (newest->settings == settings)
            return makeError(ErrorCode::FailedPrecondition,
                "template " + templateLabel(name, newest->version) + " has these settings already; nothing to create");
        record.version = newest->version + 1;
    }
    auto committed
        = commitOne({ keys::indexTemplate(name, record.version), encode(record), 0 }, actor, "create-template");
    if (!committed)
        return committed.error();
    return record;
}

} // namespace shardmap::core
