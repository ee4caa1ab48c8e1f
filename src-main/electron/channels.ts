/** The two IPC channels between main and preload: one invoke channel, checked in main. */
export const CALL_CHANNEL = 'hookbench:call';
/** Live events, main → renderer, already coalesced by the engine. */
export const LIVE_CHANNEL = 'hookbench:live';
