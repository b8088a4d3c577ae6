#pragma once

namespace h5ad_sizer::cli {

// Parses the command line, runs the command, prints its result on stdout and
// any diagnostics on stderr. Returns the process exit status (ExitStatus).
int run(int argc, char** argv);

}  // namespace h5ad_sizer::cli
