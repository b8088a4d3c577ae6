#include "cli/app.hpp"

int main(int argc, char** argv) { return h5ad_sizer::cli::run(argc, argv); }
