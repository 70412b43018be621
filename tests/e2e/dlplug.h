/* SPDX-License-Identifier: MIT */
/* dlplug.h - a plugin the tests dlopen(), dlclose() and dlopen() again. */
#ifndef DLPLUG_H
#define DLPLUG_H

int dp_add(int a, int b);
int dp_state(void);

#endif
