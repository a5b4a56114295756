// Benchmark-only driver of the PyPI corels 1.1.29 C++ core on CORELS .out/.label/.minor files.
// Build (inside corels-1.1.29/corels/src/corels of the sdist):
//   g++ -O3 -std=c++11 -I. -I.. corels_reference_driver.cpp rulelib.cpp run.cpp pmap.cpp utils.cpp \
//       corels.cpp cache.cpp time.cpp -o corels_cli
// Usage: corels_cli train.out train.label train.minor c policy map max_nodes time_limit
// Prints one JSON line: accuracy, rules (the default rule not counted), early (1: stopped at
// time_limit), prefix (0-based lines of the .out file), search_cpu (CPU s from run_corels_begin
// to run_corels_end, files read before), peak_rss_mb (VmHWM of this process).
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>
#include "rule.h"
#include "run.h"

static int load(const char *path, std::vector<rule_t> &out, int *nsamples) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        size_t sp = line.find(' ');
        if (sp == std::string::npos) continue;
        rule_t r;
        r.features = strdup(line.substr(0, sp).c_str());
        std::string bits = line.substr(sp + 1);
        int ones = 0, n = *nsamples;
        if (ascii_to_vector((char *)bits.c_str(), bits.size(), &n, &ones, &r.truthtable) != 0) return -1;
        *nsamples = n;
        r.support = ones;
        r.cardinality = 1;
        r.ids = NULL;
        out.push_back(r);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 9) {
        fprintf(stderr, "usage: %s out label minor c policy map max_nodes time_limit\n", argv[0]);
        return 2;
    }
    int nsamples = 0;
    std::vector<rule_t> rules(1), labels, minor;
    if (load(argv[1], rules, &nsamples) || load(argv[2], labels, &nsamples) ||
        load(argv[3], minor, &nsamples)) {
        fprintf(stderr, "could not read the input files\n");
        return 1;
    }
    rules[0].features = strdup("default");
    rules[0].support = nsamples;
    rules[0].cardinality = 1;
    rules[0].ids = NULL;
    make_default(&rules[0].truthtable, nsamples);
    double c = atof(argv[4]), limit = atof(argv[8]);
    size_t max_nodes = strtoull(argv[7], NULL, 10);
    std::clock_t cpu0 = std::clock();  // the search alone: files read, before the tree is built
    if (run_corels_begin(c, (char *)"", atoi(argv[5]), atoi(argv[6]), 0, 0, (int)rules.size(), 2,
                         nsamples, rules.data(), labels.data(), minor.data()) != 0)
        return 1;
    auto t0 = std::chrono::steady_clock::now();
    int early = 0, it = 0;
    while (run_corels_loop(max_nodes) == 0) {
        if (limit > 0 && (++it & 1023) == 0 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > limit) {
            early = 1;
            break;
        }
    }
    int *rl = NULL, *cls = NULL, n = 0;
    double acc = run_corels_end(&rl, &n, &cls, early);
    double search_cpu = double(std::clock() - cpu0) / CLOCKS_PER_SEC;
    // this process's own peak RSS (getrusage's ru_maxrss also counts the parent's peak
    // carried over by fork and exec); -1 where /proc is missing
    long hwm_kb = -1;
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmHWM:") { status >> hwm_kb; break; }
    }
    printf("{\"accuracy\": %.12f, \"rules\": %d, \"early\": %d, \"prefix\": [", acc, n, early);
    for (int i = 0; i < n; i++) printf(i ? ", %d" : "%d", rl[i] - 1);  // columns of the .out file
    printf("], \"search_cpu\": %.6f, \"peak_rss_mb\": %.1f}\n", search_cpu, hwm_kb / 1024.0);
    return 0;
}
