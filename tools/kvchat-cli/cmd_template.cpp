// template: renders a Jinja chat template over a JSON message list, byte for byte.
#include <cstdio>

#include "cli_common.h"
#include "commands.h"
#include "kvchat/chat_template.h"

namespace kvchat::cli {

int cmd_template(const Argv& argv) {
  auto args =
      Args::parse(argv, {"--template-file", "--messages", "--bos", "--eos", "--now", "--vars"},
                  {"--add-generation-prompt"});
  if (!args) return fail(args.message());
  auto template_path = args->require("--template-file");
  if (!template_path) return fail(template_path.message());
  auto messages_path = args->require("--messages");
  if (!messages_path) return fail(messages_path.message());
  auto source = read_file(*template_path);
  if (!source) return fail(source.message());
  auto messages = read_file(*messages_path);
  if (!messages) return fail(messages.message());

  ChatRenderOptions options;
  options.add_generation_prompt = args->has("--add-generation-prompt");
  options.bos_token = args->get("--bos");
  options.eos_token = args->get("--eos");
  if (args->has("--now")) {
    auto now = args->get_int("--now", 0);
    if (!now) return fail(now.message());
    options.now_unix_seconds = *now;
  }
  if (args->has("--vars")) {
    auto vars = read_file(args->get("--vars"));
    if (!vars) return fail(vars.message());
    options.extra_variables_json = std::move(*vars);
  }

  auto tpl = ChatTemplate::parse(*source);
  if (!tpl) return fail(tpl.message());
  auto text = tpl->render_json(*messages, options);
  if (!text) return fail(text.message());
  std::fwrite(text->data(), 1, text->size(), stdout);
  return 0;
}

}  // namespace kvchat::cli
