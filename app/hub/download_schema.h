// The table `downloads`: the Hub downloads' state (hub::DownloadStore), one row per file
// being fetched. Step 3 -> 4 of kvchat.sqlite's history (app/store/schema.cpp) and what
// DownloadStore creates in kvchat-cli's own state file: the hub owns its DDL, so kvchat-cli
// links none of the app's.
#pragma once

#include <QStringList>

namespace kvchat::hub {

// The statements that create it. A shipped step: never edit; a later change is a new step.
QStringList downloads_table_v1();

}  // namespace kvchat::hub
