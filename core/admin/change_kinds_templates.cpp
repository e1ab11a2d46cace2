#include "core/admin/change_kind_steps.h"

// The change kind of index templates (issue 31): create-template, the next version of a template
// made by MapEditor::createTemplate from the settings' JSON form.

#include "core/admin/admin_limits.h"
#include "core/map/index_templates.h"

#include <iterator>

namespace shardmap::core {

namespace {

using namespace change_steps;
using TemplateOneof = v1::AdminChange;

Status checkTemplateText(const v1::AdminChange& change)
{
    const auto& made = change.create_template();
    return checkTextBounds("change.create_template.",
        { { "name", made.name(), 64 }, { "settings_json", made.settings_json(), 64 * 1024 },
            { "description", made.description(), 1024 } });
}

std::string templateSummary(const v1::AdminChange& change)
{
    return "create the next version of index template " + change.create_template().name();
}

Result<v1::ChangeResponse> applyTemplate(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    const auto& made = change.create_template();
    auto settings = decodeIndexSettings(made.settings_json());
    if (!settings)
        return settings.error();
    auto created = admin.map().createTemplate(made.name(), *settings, made.description(), actor);
    if (!created)
        return created.error();
    auto revision = admin.store().currentRevision();
    return revisionResponse(revision, "template", encode(*created));
}

const ChangeKind kTemplateChangeKinds[] = {
    // Issue 31: a template changes nothing live (a reindex does, as an operation), but it decides
    // how every shard later built with it indexes: an admin's.
    { .oneof = TemplateOneof::kCreateTemplate,
        .name = "create-template",
        .checkText = checkTemplateText,
        .summary = templateSummary,
        .role = adminRole,
        .apply = applyTemplate },
};

} // namespace

std::span<const ChangeKind> templateChangeKinds()
{
    return { std::begin(kTemplateChangeKinds), std::end(kTemplateChangeKinds) };
}

} // namespace shardmap::core
