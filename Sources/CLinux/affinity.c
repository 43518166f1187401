#define _GNU_SOURCE
#include <sched.h>
#include "csystem.h"

int driftfix_allowed_cpus(int *ids, int capacity) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    int count = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &set)) continue;
        if (count < capacity) ids[count] = cpu;
        count++;
    }
    return count;
}
