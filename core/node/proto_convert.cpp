#include "core/node/proto_convert.h"

// The field-by-field mapping of documents, write results and search hits to and from protobuf.

namespace shardmap::core {

Document fromProto(const v1::Document& in)
{
    Document doc { in.space(), in.id(), in.version(), {}, in.deleted() };
    for (const auto& [name, value] : in.fields())
        doc.fields.emplace(name, value);
    return doc;
}

void toProto(const Document& in, v1::Document& out)
{
    out.set_space(in.space);
    out.set_id(in.id);
    out.set_version(in.version);
    out.set_deleted(in.deleted);
    for (const auto& [name, value] : in.fields)
        (*out.mutable_fields())[name] = value;
}

ItemResult fromProto(const v1::ItemResult& in)
{
    return ItemResult { static_cast<WriteOutcome>(in.outcome()), in.reason(), in.stored_version() };
}

void toProto(const ItemResult& in, v1::ItemResult& out)
{
    out.set_outcome(static_cast<v1::WriteOutcome>(in.outcome));
    out.set_reason(in.reason);
    out.set_stored_version(in.storedVersion);
}

SearchHit fromProto(const v1::SearchHit& in)
{
    return SearchHit { in.space(), in.id(), in.version(), in.score(), in.snippet() };
}

void toProto(const SearchHit& in, v1::SearchHit& out)
{
    out.set_space(in.space);
    out.set_id(in.id);
    out.set_version(in.version);
    out.set_score(in.score);
    out.set_snippet(in.snippet);
}

} // namespace shardmap::core
