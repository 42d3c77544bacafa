package dev.peregrine.jmh.websocket;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.util.concurrent.ImmediateEventExecutor;

/**
 * The Netty peer of {@code scripts/bench-ws}: the same two endpoints as {@link PeregrineWsServer} on
 * Netty's own WebSocket stack ({@code HttpServerCodec}, {@code HttpObjectAggregator} for the handshake,
 * {@code WebSocketServerProtocolHandler}, no extensions, so no compression), one event loop (epoll where
 * Netty's native library loads, else NIO), pooled direct buffers (Netty's default allocator):
 * <ul>
 *   <li>{@code /ws/echo}: each text or binary frame is written back (the frame itself, retained: no
 *       copy), flushed once per read batch ({@code channelReadComplete}), as Netty's own examples
 *       recommend for throughput;</li>
 *   <li>{@code /ws/broadcast}: each message is sent to every connection of that path through a
 *       {@code ChannelGroup} (one frame, a retained duplicate per channel: encoded per channel by the
 *       frame encoder, Netty's usual way).</li>
 * </ul>
 * Run: {@code java -cp peregrine-jmh.jar dev.peregrine.jmh.websocket.NettyWsServer PORT}. Prints
 * {@code listening PORT} once bound.
 */
public final class NettyWsServer {
    private NettyWsServer() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        boolean epoll = Epoll.isAvailable() && !"nio".equals(System.getProperty("netty.transport"));
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, io);
        ChannelGroup room = new DefaultChannelGroup(ImmediateEventExecutor.INSTANCE);
        WebSocketServerProtocolConfig echoConfig = WebSocketServerProtocolConfig.newBuilder()
                .websocketPath("/ws/echo").allowExtensions(false).maxFramePayloadLength(1 << 20).build();
        WebSocketServerProtocolConfig roomConfig = WebSocketServerProtocolConfig.newBuilder()
                .websocketPath("/ws/broadcast").allowExtensions(false).maxFramePayloadLength(1 << 20).build();
        ServerBootstrap b = new ServerBootstrap().group(group)
                .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 4096)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(8192),
                                new Router(echoConfig, roomConfig, room));
                    }
                });
        Channel server = b.bind("127.0.0.1", port).sync().channel();
        System.out.println("listening " + port + " (netty " + (epoll ? "epoll" : "nio") + ")");
        server.closeFuture().sync();
    }

    /** Picks the endpoint from the handshake's path, then steps aside. */
    private static final class Router extends SimpleChannelInboundHandler<io.netty.handler.codec.http.FullHttpRequest> {
        private final WebSocketServerProtocolConfig echo;
        private final WebSocketServerProtocolConfig broadcast;
        private final ChannelGroup room;

        Router(WebSocketServerProtocolConfig echo, WebSocketServerProtocolConfig broadcast, ChannelGroup room) {
            super(false);
            this.echo = echo;
            this.broadcast = broadcast;
            this.room = room;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, io.netty.handler.codec.http.FullHttpRequest req) {
            boolean toRoom = req.uri().startsWith("/ws/broadcast");
            ctx.pipeline().addLast(new WebSocketServerProtocolHandler(toRoom ? broadcast : echo),
                    toRoom ? new Broadcast(room) : new Echo());
            ctx.fireChannelRead(req); // the protocol handler answers the handshake
            ctx.pipeline().remove(this);
        }
    }

    private static final class Echo extends SimpleChannelInboundHandler<WebSocketFrame> {
        Echo() {
            super(false);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) {
            if (frame instanceof TextWebSocketFrame || frame instanceof BinaryWebSocketFrame) {
                ctx.write(frame);
            } else {
                frame.release();
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    private static final class Broadcast extends SimpleChannelInboundHandler<WebSocketFrame> {
        private final ChannelGroup room;

        Broadcast(ChannelGroup room) {
            super(false);
            this.room = room;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof WebSocketServerProtocolHandler.HandshakeComplete) {
                room.add(ctx.channel());
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) {
            if (frame instanceof TextWebSocketFrame || frame instanceof BinaryWebSocketFrame) {
                room.writeAndFlush(frame); // releases the frame once written to every channel
            } else {
                frame.release();
            }
        }
    }
}
