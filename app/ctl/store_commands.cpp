// shardmapctl store copy: move a whole shard map, with its history, to another store.
#include "app/ctl/commands.h"
#include "core/store/store_copy.h"

#include <iostream>

namespace shardmap::app {

CommandResult cmdStoreCopy(const CtlOptions& options, const std::string& fromUri, const std::string& toUri)
{
    if (fromUri.empty() || toUri.empty())
        return core::makeError(core::ErrorCode::InvalidArgument, "store copy needs --from URI and --to URI");
    if (fromUri == toUri)
        return core::makeError(core::ErrorCode::InvalidArgument, "--from and --to name the same store");
    auto from = core::openStore(fromUri, false);
    if (!from)
        return from.error();
    auto to = core::openStore(toUri, true);
    if (!to)
        return to.error();
    const bool quiet = options.json;
    auto copied = core::copyStore(**from, **to, [quiet](const core::StoreCopyProgress& progress) {
        if (!quiet)
            std::cerr << "\rcopied " << progress.copied << " of " << progress.total << " revisions" << std::flush;
    });
    if (!quiet)
        std::cerr << "\n";
    if (!copied)
        return copied.error();
    CommandOutput output;
    output.json = { { "from", (*from)->describe() }, { "to", (*to)->describe() }, { "commits", copied->commits },
        { "records", copied->records }, { "revision", copied->sourceRevision } };
    output.human = [result = *copied, fromText = (*from)->describe(), toText = (*to)->describe()](std::ostream& out) {
        out << "copied " << result.commits << " revisions (" << result.records << " records) from " << fromText
            << " to " << toText << "; both at revision " << result.sourceRevision << "\n";
    };
    return output;
}

} // namespace shardmap::app
