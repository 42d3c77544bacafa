package dev.peregrine.client;

import dev.peregrine.loop.TimerWheel;

/**
 * Where a {@link Call} waits and is answered: a {@link HostPool} (one request per connection) or a
 * {@link PipelineHost} (many in flight per connection). Thread: the site's loop thread.
 */
interface CallSite {
    /** {@code host:port}, named in every error. */
    String host();

    HttpClient client();

    /** The wheel of the loop the site lives on; the call's total deadline is a node on it. */
    TimerWheel timers();

    /** Takes a call (on the site's loop thread: {@link Call#run} hands it over). */
    void submit(Call call);

    /** The free list of this site's calls. */
    CallRecycler calls();

    /** The call is done (total timeout): drop it from any wait queue. */
    void forget(Call call);
}
