package dev.peregrine.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** See {@link PeregrineEvents}. */
@Name("dev.peregrine.Timeout")
@Label("Timeout")
@Category("Peregrine")
@Description("A connection or off-loop handler timeout ran out")
@StackTrace(false)
final class TimeoutEvent extends jdk.jfr.Event {
    @Label("Kind")
    @Description("header, body, idle, write, drain or async")
    String kind;
}
