"""benchmark"""
