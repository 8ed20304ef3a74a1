// SPDX-License-Identifier: GPL-2.0
/*
 * The one definition of every map and global variable of the BPF object
 * (maps.bpf.h); the other objects declare them extern and the link
 * (bpftool gen object) resolves them here.
 */
#define FSAIO_DEFINE_MAPS
#include "maps.bpf.h"

char LICENSE[] SEC("license") = "GPL";
