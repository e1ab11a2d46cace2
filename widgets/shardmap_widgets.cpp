// The widgets library has no views yet; this translation unit anchors the target.
namespace shardmap::widgets {
int libraryVersion()
{
    return 1;
}
} // namespace shardmap::widgets
