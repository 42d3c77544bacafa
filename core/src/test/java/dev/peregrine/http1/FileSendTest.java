package dev.peregrine.http1;

import dev.peregrine.exchange.FileSend;
import dev.peregrine.exchange.ResponseView;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FileSend} through a detached {@link ResponseView}: {@code sendFile} records the file and
 * opens nothing; errors it can know at the call are raised at the call.
 */
class FileSendTest {
    @TempDir
    Path dir;

    @Test
    void aPathIsRecordedSizedAndNeverOpenedByTheView() throws IOException {
        Path f = Files.writeString(dir.resolve("page.html"), "<p>0123456789</p>");
        ResponseView res = new ResponseView();
        res.sendFile(f);
        assertEquals(ResponseView.FILE, res.special());
        assertEquals(17, res.bodyLengthToSend());
        assertEquals("text/html; charset=utf-8", res.contentType.toString());
        assertFalse(openHere(f), "the view opened the file");
        FileSend send = res.takeFile();
        assertEquals(0, res.special(), "taken: the owner sends it now");
        assertEquals(f, send.path());
        assertEquals(0, send.offset());
        assertEquals(17, send.length());
        try (FileChannel ch = send.open()) {
            assertEquals(17, ch.size());
        }
        assertNull(send.path(), "open() forgets the file: its caller owns the channel");
        assertNull(res.takeFile());
    }

    @Test
    void aRangeIsCheckedAtTheCall() throws IOException {
        Path f = Files.writeString(dir.resolve("ten.txt"), "0123456789");
        ResponseView res = new ResponseView();
        res.sendFile(f, 2, 8);
        assertEquals(8, res.bodyLengthToSend());
        FileSend send = res.takeFile();
        assertEquals(2, send.offset());
        assertEquals(8, send.length());
        ResponseView outside = new ResponseView();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> outside.sendFile(f, 5, 6));
        assertTrue(e.getMessage().contains("5+6"), e.getMessage());
        assertEquals(0, outside.special(), "a refused range leaves no file behind");
        assertNull(outside.takeFile());
    }

    @Test
    void aMissingFileOrADirectoryIsA404AtTheCall() throws IOException {
        ResponseView res = new ResponseView();
        res.sendFile(dir.resolve("nope.txt"));
        assertEquals(404, res.statusCode());
        assertEquals(0, res.special());
        ResponseView d = new ResponseView();
        d.sendFile(dir);
        assertEquals(404, d.statusCode());
        ResponseView escape = new ResponseView();
        escape.sendFile(dir, "../etc/passwd");
        assertEquals(404, escape.statusCode());
    }

    @Test
    void aHandedOverChannelIsClosedWhenTheResponseIsResetUnsent() throws IOException {
        Path f = Files.writeString(dir.resolve("c.bin"), "abcdef");
        FileChannel ch = FileChannel.open(f, StandardOpenOption.READ);
        ResponseView res = new ResponseView();
        res.sendFile(ch, 1, 4);
        assertEquals(4, res.bodyLengthToSend());
        res.reset();
        assertFalse(ch.isOpen(), "the response owns the channel from the call on");
        FileChannel bad = FileChannel.open(f, StandardOpenOption.READ);
        assertThrows(IllegalArgumentException.class, () -> new ResponseView().sendFile(bad, 4, 3));
        assertFalse(bad.isOpen());
        FileChannel taken = FileChannel.open(f, StandardOpenOption.READ);
        ResponseView sent = new ResponseView();
        sent.sendFile(taken, 0, 6);
        try (FileChannel same = sent.takeFile().open()) {
            assertTrue(same == taken && same.isOpen());
            sent.reset();
            assertTrue(same.isOpen(), "once taken, the channel is its new owner's");
        }
    }

    /** Whether this process holds a descriptor on {@code f} (Linux's /proc; false elsewhere). */
    private static boolean openHere(Path f) throws IOException {
        Path fds = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fds)) {
            return false;
        }
        Path real = f.toRealPath();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(fds)) {
            for (Path fd : s) {
                try {
                    if (Files.readSymbolicLink(fd).equals(real)) {
                        return true;
                    }
                } catch (IOException gone) {
                    // the directory stream's own descriptor, closed meanwhile
                }
            }
        }
        return false;
    }
}
