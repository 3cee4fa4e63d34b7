/*
 * StarterAppRsc.h: resource IDs of the memdbg starter application.
 *
 * Included by StarterApp.rcp (compiled by tools/rcp, `palm-rcp`) and meant to
 * be mirrored by the application code. Object IDs are unique within the main
 * form; menu commands, forms, menus and alerts have IDs of their own kinds.
 */
#ifndef STARTER_APP_RSC_H
#define STARTER_APP_RSC_H

/* The main form (tFRM) and its objects. */
#define MainForm                1000
#define MainLeakPtrButton       1001    /* MemPtrNew, never freed: reported */
#define MainLeakHandleButton    1002    /* MemHandleNew, never freed: reported */
#define MainFieldHandleButton   1003    /* FldSetTextHandle; FrmDeleteForm frees it */
#define MainResizePtrButton     1004    /* MemPtrResize in place */
#define MainMoveHandleButton    1005    /* MemHandleResize that moves the chunk */
#define MainOverrunButton       1006    /* one byte written past a block */
#define MainDoubleFreeButton    1007    /* MemPtrFree twice */
#define MainFragmentButton      1008    /* many small blocks, every other freed */
#define MainLeakBoxButton       1009    /* a Rust Box leaked */
#define MainCorrectButton       1010    /* allocate and free: no report */
#define MainExitButton          1011
#define MainLoopLeakButton      1012    /* 5 passes, a checkpoint and a leak each */
#define MainLockHandleButton    1013    /* a handle left locked twice: reported */
#define MainPinHeapButton       1014    /* a 64-byte pointer splits the free space */
#define MainTextLabel           1020
#define MainTextField           1021    /* gets the field-handle scenario's text */
#define MainHintLabel           1022

/* The main form's menu bar (MBAR) and its commands. */
#define MainMenuBar             1000
#define OptionsAboutCmd         2001

/* Alerts (Talt). */
#define AboutAlert              1000

#endif /* STARTER_APP_RSC_H */
