package dev.peregrine.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** See {@link PeregrineEvents}. */
@Name("dev.peregrine.Rejection")
@Label("Rejection")
@Category("Peregrine")
@Description("The server answered a request with an error of its own and closed, or closed a PROXY-protocol connection")
@StackTrace(false)
final class RejectionEvent extends jdk.jfr.Event {
    @Label("Status")
    @Description("Status code answered; 0 when the connection was closed without an answer")
    int status;

    @Label("Reason")
    String reason;

    @Label("Remote Address")
    String remoteAddress;
}
