"""A test case with a runner Channel on one end of a socket pair and the peer (the parent's end)
on the other, both closed after each test."""

import socket
import unittest

import _paths  # noqa: F401  (sys.path for `runner`)
from runner.channel import Channel


class ChannelCase(unittest.TestCase):
    def setUp(self):
        ours, self.peer = socket.socketpair()
        self.channel = Channel(ours)

    def tearDown(self):
        self.channel.sock.close()
        self.peer.close()
