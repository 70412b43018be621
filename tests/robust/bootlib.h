/* SPDX-License-Identifier: MIT */
#ifndef BOOTLIB_H
#define BOOTLIB_H
/* 1 when bootlib's early constructor got working memory and a file. */
extern int bootlib_result;
#endif
