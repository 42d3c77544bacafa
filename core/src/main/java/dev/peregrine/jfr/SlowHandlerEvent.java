package dev.peregrine.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** See {@link PeregrineEvents}. */
@Name("dev.peregrine.SlowHandler")
@Label("Slow Handler")
@Category("Peregrine")
@Description("A request took at least slowHandlerThreshold from dispatch to its response encoded")
@StackTrace(false)
final class SlowHandlerEvent extends jdk.jfr.Event {
    @Label("Route")
    String route;

    @Label("Method")
    String method;

    @Label("Status")
    int status;

    /** The request's duration (the event's own {@code duration} is that of the commit, near zero). */
    @Label("Elapsed")
    @Timespan(Timespan.NANOSECONDS)
    long elapsed;
}
